package io.semafor.microraft;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.util.Arrays;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

/** The members' own messages as bytes: what one member writes, another reads back the same. */
class ControlCodecTest {
  @Property(tries = 500)
  void everyMessageReadsBackAsTheSameMessage(@ForAll("messages") GroupControl message) {
    byte[] written = bytesOf(message);

    assertThat(ControlCodec.isControl(Unpooled.wrappedBuffer(written))).isTrue();
    assertThat(ControlCodec.read(Unpooled.wrappedBuffer(written))).isEqualTo(message);
  }

  @Property(tries = 500)
  void aMessageCutShortAnywhereIsRefusedAsMalformed(
      @ForAll("messages") GroupControl message, @ForAll("fractions") double where) {
    byte[] bytes = bytesOf(message);
    byte[] cut = Arrays.copyOf(bytes, (int) ((bytes.length - 1) * where));

    assertThatThrownBy(() -> ControlCodec.read(Unpooled.wrappedBuffer(cut)))
        .isInstanceOf(MalformedPeerMessageException.class);
  }

  @Property(tries = 1000)
  void aMessageWithAnyByteChangedEitherReadsOrIsRefusedAsMalformed(
      @ForAll("messages") GroupControl message,
      @ForAll("fractions") double where,
      @ForAll byte value) {
    byte[] bytes = bytesOf(message);
    bytes[Math.min(bytes.length - 1, (int) (bytes.length * where))] = value;

    try {
      assertThat(ControlCodec.read(Unpooled.wrappedBuffer(bytes))).isNotNull();
    } catch (MalformedPeerMessageException e) {
      assertThat(e.getMessage()).isNotBlank();
    }
  }

  @Test
  void aRaftMessageIsNotAControlMessage() {
    ByteBuf raft = Unpooled.buffer();
    new PeerCodec()
        .write(
            PeerCodec.MODEL
                .createVoteResponseBuilder()
                .setGroupId("semafor")
                .setSender(new MemberEndpoint("n1", "127.0.0.1", 7500, 7400))
                .setTerm(3)
                .setGranted(true)
                .build(),
            raft);

    assertThat(ControlCodec.isControl(raft)).isFalse();
  }

  @Test
  void anUnknownOutcomeIsRefusedAsMalformed() {
    GroupControl answer =
        new GroupControl.MembersChanged(
            7,
            new MemberEndpoint("n1", "127.0.0.1", 7500, 7400),
            GroupControl.Outcome.DONE,
            "n1,n2");
    byte[] bytes = bytesOf(answer);
    int outcomeAt = 1 + 8 + 3 + 10 + 4; // type, id, "n1", "127.0.0.1", two ports
    bytes[outcomeAt] = 9;

    assertThatThrownBy(() -> ControlCodec.read(Unpooled.wrappedBuffer(bytes)))
        .isInstanceOf(MalformedPeerMessageException.class)
        .hasMessage("unknown outcome 9");
  }

  private static byte[] bytesOf(GroupControl message) {
    ByteBuf out = Unpooled.buffer();
    ControlCodec.write(message, out);
    return ByteBufUtil.getBytes(out);
  }

  @Provide
  Arbitrary<Double> fractions() {
    return Arbitraries.doubles().between(0, 1);
  }

  @Provide
  Arbitrary<GroupControl> messages() {
    Arbitrary<MemberEndpoint> member =
        Combinators.combine(
                Arbitraries.strings().withChars("nrab0123é").ofMinLength(1).ofMaxLength(8),
                Arbitraries.of("127.0.0.1", "::1", "node-1.example"),
                Arbitraries.integers().between(1, 65535),
                Arbitraries.integers().between(1, 65535))
            .as(MemberEndpoint::new);
    Arbitrary<Long> id = Arbitraries.longs();
    Arbitrary<String> text =
        Arbitraries.strings().alpha().numeric().withChars(" ,:=.é€").ofMaxLength(200);
    return Arbitraries.oneOf(
        Combinators.combine(id, member, member.list().ofMaxSize(7)).as(GroupControl.Welcome::new),
        Combinators.combine(id, member, Arbitraries.of(true, false), text)
            .as(GroupControl.Welcomed::new),
        Combinators.combine(
                id,
                member,
                Arbitraries.of(GroupControl.Change.class),
                text,
                Arbitraries.longs().between(0, 120_000))
            .as(GroupControl.ChangeMembers::new),
        Combinators.combine(id, member, Arbitraries.of(GroupControl.Outcome.class), text)
            .as(GroupControl.MembersChanged::new));
  }
}
