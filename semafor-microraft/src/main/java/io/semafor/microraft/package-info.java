/**
 * The first parts of a second replicator on MicroRaft (decision 0043): {@link
 * io.semafor.microraft.PeerCodec} puts MicroRaft's messages into bytes, {@link
 * io.semafor.microraft.PeerTransport} carries them between members over TCP, and {@link
 * io.semafor.microraft.NodeLoop} runs a node, its connections and its timers on one thread. The
 * replication gate benchmark runs on them; no server uses them yet.
 */
@NullMarked
package io.semafor.microraft;

import org.jspecify.annotations.NullMarked;
