/**
 * TLS material both ends read: PEM certificates and PKCS#8 keys ({@link
 * io.semafor.protocol.tls.PemFiles}) and JDK {@link javax.net.ssl.SSLContext}s built from them
 * ({@link io.semafor.protocol.tls.TlsMaterial}). Here because the client (plain JDK sockets, no
 * Netty) and the server (Netty, the admin HTTP server, Ratis) must read the same files the same
 * way.
 */
@NullMarked
package io.semafor.protocol.tls;

import org.jspecify.annotations.NullMarked;
