/**
 * Semafor's wire contract: the messages generated from {@code semafor.proto}, the frame format, and
 * the PEM and peer-name helpers that both sides of a TLS connection use (docs/protocol.md).
 */
// protobuf-java is an automatic module: its manifest names it, and it has no module-info
@SuppressWarnings({"requires-automatic", "requires-transitive-automatic"})
module io.semafor.protocol {
  requires transitive com.google.protobuf;
  requires static transitive org.jspecify; // annotations only: not needed at run time
  requires java.naming; // the certificate subject's CN (NamedPeerTrustManager)

  exports io.semafor.protocol;
  exports io.semafor.protocol.tls;
  exports io.semafor.protocol.v1;
}
