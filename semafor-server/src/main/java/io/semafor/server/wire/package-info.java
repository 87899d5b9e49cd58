/**
 * The wire forms of the server's requests and answers: protocol frames to the core's operations and
 * queries, the core's replies to protocol frames, and what the audit log and the permission filters
 * make of them. Stateless.
 */
@NullMarked
package io.semafor.server.wire;

import org.jspecify.annotations.NullMarked;
