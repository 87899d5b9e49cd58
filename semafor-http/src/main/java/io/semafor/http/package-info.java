/**
 * The HTTP/JSON API (docs/http.md, decision 0052): {@link io.semafor.http.HttpGateway} serves it on
 * its own port with the reusable Netty HTTP stack of {@link io.semafor.server.http.HttpServer}, and
 * answers every route through a {@link io.semafor.client.SemaforClient} per bearer token connected
 * to the node's own client port.
 */
@NullMarked
package io.semafor.http;

import org.jspecify.annotations.NullMarked;
