package io.semafor.replication;

import java.nio.file.Path;
import java.util.List;

/**
 * Mutual TLS between the members of a cluster on their Raft ports (Ratis's gRPC): each member
 * serves {@code cert} and presents it when it calls another, and accepts only peers whose
 * certificate leads to a CA in {@code ca} and, when {@code names} is not empty, names one of them
 * (its subject CN or a DNS subject alternative name). So a peer's certificate must allow both TLS
 * server and client use (extended key usage {@code serverAuth,clientAuth}, or none), and name the
 * host of its Raft address in its subject alternative names: gRPC verifies the host name as HTTPS
 * does. Immutable.
 *
 * @param cert this member's certificate chain (PEM, leaf first)
 * @param key its private key (PEM, unencrypted PKCS#8)
 * @param ca the CA certificates (PEM) the other members' certificates must lead to
 * @param names the names a member's certificate may carry ({@code --tls-peer-names}); empty: any
 *     certificate from {@code ca}
 */
public record PeerTls(Path cert, Path key, Path ca, List<String> names) {
  /** Copies {@code names}. */
  public PeerTls {
    names = List.copyOf(names);
  }

  /** Any certificate from {@code ca} passes for a member. */
  public PeerTls(Path cert, Path key, Path ca) {
    this(cert, key, ca, List.of());
  }
}
