/**
 * The single-node Semafor server: {@link io.semafor.server.SemaforServer} started with a {@link
 * io.semafor.server.ServerConfig}, or {@link io.semafor.server.Main} from the command line.
 */
@NullMarked
package io.semafor.server;

import org.jspecify.annotations.NullMarked;
