/**
 * The node's one HTTP stack (decision 0055): a Netty HTTP/1.1 server ({@link
 * io.semafor.server.http.HttpServer}) with TLS, bounded bodies, idle and write timeouts and a
 * graceful close, a {@link io.semafor.server.http.Router} of {@link io.semafor.server.http.Route}s,
 * and the {@link io.semafor.server.http.Exchange} a route answers through, now or later, from any
 * thread, or as a stream of Server-Sent Events ({@link io.semafor.server.http.EventStream}). It
 * knows nothing of semaphores: the admin port and the console, and the HTTP/JSON API of module
 * semafor-http, serve their routes on it.
 */
@NullMarked
package io.semafor.server.http;

import org.jspecify.annotations.NullMarked;
