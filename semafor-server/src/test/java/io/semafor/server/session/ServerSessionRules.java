package io.semafor.server.session;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import io.semafor.protocol.v1.ClientFrame;
import io.semafor.protocol.v1.Get;
import io.semafor.protocol.v1.Hello;
import io.semafor.protocol.v1.Increment;
import io.semafor.protocol.v1.KeepAlive;
import io.semafor.protocol.v1.Read;
import io.semafor.protocol.v1.Request;
import io.semafor.protocol.v1.ServerFrame;
import io.semafor.protocol.v1.Watch;
import io.semafor.server.security.Access;
import io.semafor.server.security.AuthFile;
import io.semafor.server.security.Tokens;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * What the tests of a connection's session machine share: the server's settings, a fake node
 * ({@link TestNode}) and a machine on a fake clock started at 0, the frames a client sends, and
 * readers of the effects. The rules themselves are in {@link ServerSessionHelloTest} (opening,
 * resuming, credentials) and {@link ServerSessionTest} (everything after the {@code Welcome}).
 */
abstract class ServerSessionRules {
  static final Instant EPOCH = Instant.parse("2026-11-29T00:00:00Z");
  static final SessionRules RULES =
      new SessionRules(
          Duration.ofSeconds(10),
          Duration.ofSeconds(60),
          Duration.ofSeconds(30),
          Duration.ofSeconds(1),
          Duration.ofHours(1),
          1_024,
          1 << 20);
  static final Peer PEER = new Peer("/127.0.0.1:50000", "127.0.0.1");

  final TestNode node = new TestNode();
  final ServerSession machine = new ServerSession(RULES, node, random(), PEER, at(0));

  static Moment at(long millis) {
    return new Moment(Duration.ofMillis(millis).toNanos(), EPOCH.plusMillis(millis));
  }

  static SecureRandom random() {
    try {
      SecureRandom r = SecureRandom.getInstance("SHA1PRNG");
      r.setSeed(42);
      return r;
    } catch (NoSuchAlgorithmException e) {
      throw new AssertionError(e);
    }
  }

  void open(long id) {
    open(id, hello());
  }

  void open(long id, Hello.Builder hello) {
    List<ServerEffect> effects = machine.received(h(hello), at(1));
    ServerEffect.OpenSession open = (ServerEffect.OpenSession) last(effects);
    node.live(id, open.command().ttl(), open.command().owner());
    machine.opened(id);
  }

  static ClientFrame h(Hello.Builder hello) {
    return ClientFrame.newBuilder().setHello(hello).build();
  }

  static Hello.Builder hello() {
    return Hello.newBuilder().setProtocolVersion(1).setClientName("test");
  }

  static ClientFrame.Builder request(long id, long... acks) {
    Request.Builder r =
        Request.newBuilder()
            .setId(id)
            .setIncrement(
                Increment.newBuilder().setName(ByteString.copyFromUtf8("b/x")).setAmount(1));
    for (long ack : acks) {
      r.addAcks(ack);
    }
    return ClientFrame.newBuilder().setRequest(r);
  }

  static ClientFrame.Builder keepAlive(long id, long... acks) {
    KeepAlive.Builder k = KeepAlive.newBuilder().setId(id);
    for (long ack : acks) {
      k.addAcks(ack);
    }
    return ClientFrame.newBuilder().setKeepAlive(k);
  }

  static ClientFrame.Builder read(long id) {
    return ClientFrame.newBuilder()
        .setRead(
            Read.newBuilder()
                .setId(id)
                .setGet(Get.newBuilder().setName(ByteString.copyFromUtf8("x"))));
  }

  static ClientFrame.Builder watch(long id, String name) {
    return ClientFrame.newBuilder()
        .setWatch(Watch.newBuilder().setId(id).setName(ByteString.copyFromUtf8(name)));
  }

  static ServerFrame sent(ServerEffect effect) {
    assertThat(effect).isInstanceOf(ServerEffect.Send.class);
    return ((ServerEffect.Send) effect).frame();
  }

  static ServerEffect last(List<ServerEffect> effects) {
    assertThat(effects).isNotEmpty();
    return effects.get(effects.size() - 1);
  }

  static String fatalCode(List<ServerEffect> effects) {
    return closing(effects).getFatal().getFailure().getCode().name();
  }

  static String fatalMessage(List<ServerEffect> effects) {
    return closing(effects).getFatal().getFailure().getMessage();
  }

  static ServerFrame closing(List<ServerEffect> effects) {
    ServerEffect last = last(effects);
    assertThat(last).isInstanceOf(ServerEffect.SendAndClose.class);
    return ((ServerEffect.SendAndClose) last).frame();
  }

  private final List<AuthFile.TokenEntry> tokens = new ArrayList<>();

  /** Enforces rules (alice may use a/, bob b/) with alice's token; returns it. */
  String enforce(@Nullable Instant aliceExpires) throws Exception {
    String alice = issue("alice", aliceExpires);
    node.access = load(tokens);
    return alice;
  }

  String issue(String principal, @Nullable Instant expires) throws Exception {
    Tokens.Issued issued = Tokens.issue(principal, expires, new SecureRandom());
    tokens.add(issued.entry());
    if (!node.access.enforced()) {
      return issued.token();
    }
    node.access = load(tokens);
    return issued.token();
  }

  /** The rules of an auth file with {@code entries} (read from a file, as a server reads it). */
  static Access load(List<AuthFile.TokenEntry> entries) throws Exception {
    Path file = Files.createTempFile("semafor-auth", ".json");
    try {
      List<AuthFile.Rule> rules =
          List.of(
              new AuthFile.Rule("alice", "a/", List.of("read", "acquire", "release")),
              new AuthFile.Rule("bob", "b/", List.of("read", "acquire", "release")));
      Files.writeString(file, new AuthFile(entries, rules).toJson());
      return AuthFile.load(file);
    } finally {
      Files.delete(file);
    }
  }
}
