/**
 * A client connection's session protocol as a pure state machine: {@link
 * io.semafor.server.session.ServerSession} takes the frames a client sends, the outcomes the node
 * reports and the time, and returns what to do as {@link io.semafor.server.session.ServerEffect}
 * values and when to look again; it holds no socket, thread or clock. The Netty connection in
 * {@code io.semafor.server} drives it (docs/decisions/0061-server-session-machine.md).
 */
@NullMarked
package io.semafor.server.session;

import org.jspecify.annotations.NullMarked;
