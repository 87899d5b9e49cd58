package io.semafor.microraft;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.microraft.MembershipChangeMode;
import io.microraft.RaftEndpoint;
import io.microraft.impl.statemachine.NoOp;
import io.microraft.model.RaftModelFactory;
import io.microraft.model.impl.DefaultRaftModelFactory;
import io.microraft.model.log.LogEntry;
import io.microraft.model.log.RaftGroupMembersView;
import io.microraft.model.message.AppendEntriesRequest;
import io.microraft.model.message.RaftMessage;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

class PeerCodecTest {
  private static final RaftModelFactory MODEL = new DefaultRaftModelFactory();
  private final PeerCodec codec = new PeerCodec();

  @Property(tries = 500)
  void everyMessageReadsBackAsTheSameBytes(@ForAll("messages") RaftMessage message) {
    byte[] written = bytesOf(message);

    RaftMessage read = codec.read(Unpooled.wrappedBuffer(written));

    assertThat(read).usingRecursiveComparison().isEqualTo(message);
    assertThat(bytesOf(read)).isEqualTo(written);
  }

  @Property(tries = 1000)
  void aValidMessageWithAnyByteChangedEitherReadsOrIsRefusedAsMalformed(
      @ForAll("messages") RaftMessage message,
      @ForAll("fractions") double where,
      @ForAll byte value) {
    byte[] bytes = bytesOf(message);
    bytes[Math.min(bytes.length - 1, (int) (bytes.length * where))] = value;

    try {
      assertThat(codec.read(Unpooled.wrappedBuffer(bytes))).isNotNull();
    } catch (MalformedPeerMessageException e) {
      assertThat(e.getMessage()).isNotBlank();
    }
  }

  @Test
  void aNegativeTermIsRefusedAsMalformed() {
    MemberEndpoint a = new MemberEndpoint("n1", "127.0.0.1", 7700, 7600);
    ByteBuf frame =
        Unpooled.wrappedBuffer(
            bytesOf(
                MODEL.createVoteResponseBuilder().setGroupId("g").setSender(a).setTerm(3).build()));
    frame.setInt(frame.writerIndex() - 5, -1); // the term, just before the granted flag

    assertThatThrownBy(() -> codec.read(frame))
        .isInstanceOf(MalformedPeerMessageException.class)
        .hasMessageContaining("term is negative");
  }

  @Test
  void anAppendRequestKeepsItsEntriesPayloadsAndMembershipChange() {
    MemberEndpoint a = new MemberEndpoint("n1", "127.0.0.1", 7700, 7600);
    MemberEndpoint b = new MemberEndpoint("n2", "127.0.0.1", 7710, 7610);
    List<LogEntry> entries =
        List.of(
            MODEL
                .createLogEntryBuilder()
                .setIndex(7)
                .setTerm(2)
                .setOperation(new byte[] {1, 2})
                .build(),
            MODEL
                .createLogEntryBuilder()
                .setIndex(8)
                .setTerm(2)
                .setOperation(NoOp.INSTANCE)
                .build(),
            MODEL
                .createLogEntryBuilder()
                .setIndex(9)
                .setTerm(2)
                .setOperation(
                    MODEL
                        .createUpdateRaftGroupMembersOpBuilder()
                        .setMembers(List.of(a, b))
                        .setVotingMembers(List.of(a))
                        .setEndpoint(b)
                        .setMode(MembershipChangeMode.ADD_LEARNER)
                        .build())
                .build());
    AppendEntriesRequest request =
        MODEL
            .createAppendEntriesRequestBuilder()
            .setGroupId("semafor")
            .setSender(a)
            .setTerm(2)
            .setPreviousLogTerm(1)
            .setPreviousLogIndex(6)
            .setCommitIndex(5)
            .setQuerySequenceNumber(3)
            .setFlowControlSequenceNumber(4)
            .setLogEntries(entries)
            .build();

    AppendEntriesRequest read =
        (AppendEntriesRequest) codec.read(Unpooled.wrappedBuffer(bytesOf(request)));

    assertThat(read.getGroupId()).isEqualTo("semafor");
    assertThat(read.getPreviousLogIndex()).isEqualTo(6);
    assertThat(read.getCommitIndex()).isEqualTo(5);
    assertThat(read.getLogEntries()).extracting(LogEntry::getIndex).containsExactly(7L, 8L, 9L);
    assertThat((byte[]) read.getLogEntries().get(0).getOperation()).containsExactly(1, 2);
    assertThat(read.getLogEntries().get(1).getOperation()).isSameAs(NoOp.INSTANCE);
    var change =
        (io.microraft.model.groupop.UpdateRaftGroupMembersOp)
            read.getLogEntries().get(2).getOperation();
    assertThat(change.getMembers()).containsExactly(a, b);
    assertThat(change.getVotingMembers()).containsExactly(a);
    assertThat(change.getEndpoint()).isEqualTo(b);
    assertThat(change.getMode()).isEqualTo(MembershipChangeMode.ADD_LEARNER);
  }

  @Property(tries = 300)
  void aMessageCutShortIsRefusedAsMalformed(
      @ForAll("messages") RaftMessage message, @ForAll("fractions") double keep) {
    byte[] written = bytesOf(message);
    int length = (int) (written.length * keep);

    ByteBuf cut = Unpooled.wrappedBuffer(written, 0, Math.min(length, written.length - 1));

    assertThatThrownBy(() -> codec.read(cut)).isInstanceOf(MalformedPeerMessageException.class);
  }

  @Property(tries = 200)
  void aMessageWithBytesAfterItIsRefusedAsMalformed(@ForAll("messages") RaftMessage message) {
    ByteBuf longer = Unpooled.buffer();
    codec.write(message, longer);
    longer.writeByte(0);

    assertThatThrownBy(() -> codec.read(longer))
        .isInstanceOf(MalformedPeerMessageException.class)
        .hasMessageContaining("after a whole message");
  }

  @Property(tries = 2000)
  void anyBytesEitherReadAsAMessageOrAreRefusedAsMalformed(@ForAll byte[] bytes) {
    try {
      RaftMessage read = codec.read(Unpooled.wrappedBuffer(bytes));
      assertThat(read).isNotNull();
    } catch (MalformedPeerMessageException e) {
      assertThat(e).hasMessageNotContaining("null");
    }
  }

  @Test
  void aHugeEntryCountIsRefusedBeforeAnythingIsAllocated() {
    MemberEndpoint a = new MemberEndpoint("n1", "127.0.0.1", 7700, 7600);
    AppendEntriesRequest empty =
        MODEL
            .createAppendEntriesRequestBuilder()
            .setGroupId("g")
            .setSender(a)
            .setTerm(1)
            .setLogEntries(List.of())
            .build();
    ByteBuf frame = Unpooled.wrappedBuffer(bytesOf(empty));
    frame.setInt(frame.writerIndex() - 4, Integer.MAX_VALUE); // the entry count, written last

    assertThatThrownBy(() -> codec.read(frame))
        .isInstanceOf(MalformedPeerMessageException.class)
        .hasMessageContaining("entries: a count of 2147483647");
  }

  @Test
  void anEndpointOtherThanAMemberEndpointIsAProgrammingError() {
    RaftEndpoint stranger = () -> "n9";
    RaftMessage vote =
        MODEL.createVoteResponseBuilder().setGroupId("g").setSender(stranger).setTerm(1).build();

    assertThatThrownBy(() -> codec.write(vote, Unpooled.buffer()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("MemberEndpoint");
  }

  private byte[] bytesOf(RaftMessage message) {
    ByteBuf out = Unpooled.buffer();
    codec.write(message, out);
    return ByteBufUtil.getBytes(out);
  }

  @Provide
  Arbitrary<Double> fractions() {
    return Arbitraries.doubles().between(0, 1);
  }

  @Provide
  Arbitrary<RaftMessage> messages() {
    Arbitrary<MemberEndpoint> member = members();
    Arbitrary<Integer> term = Arbitraries.integers().between(0, Integer.MAX_VALUE);
    Arbitrary<Long> index = Arbitraries.longs().between(0, Long.MAX_VALUE);
    Arbitrary<Boolean> flag = Arbitraries.of(true, false);
    Arbitrary<String> group = Arbitraries.strings().alpha().ofMinLength(1).ofMaxLength(20);
    return Arbitraries.oneOf(
        Combinators.combine(group, member, term, term, index, index, entries(member, term))
            .as(
                (g, s, t, pt, pi, ci, es) ->
                    (RaftMessage)
                        MODEL
                            .createAppendEntriesRequestBuilder()
                            .setGroupId(g)
                            .setSender(s)
                            .setTerm(t)
                            .setPreviousLogTerm(pt)
                            .setPreviousLogIndex(pi)
                            .setCommitIndex(ci)
                            .setQuerySequenceNumber(pi / 3)
                            .setFlowControlSequenceNumber(ci / 5)
                            .setLogEntries(es)
                            .build()),
        Combinators.combine(group, member, term, index, index)
            .as(
                (g, s, t, i, q) ->
                    MODEL
                        .createAppendEntriesSuccessResponseBuilder()
                        .setGroupId(g)
                        .setSender(s)
                        .setTerm(t)
                        .setLastLogIndex(i)
                        .setQuerySequenceNumber(q)
                        .setFlowControlSequenceNumber(i ^ q)
                        .build()),
        Combinators.combine(group, member, term, index)
            .as(
                (g, s, t, i) ->
                    MODEL
                        .createAppendEntriesFailureResponseBuilder()
                        .setGroupId(g)
                        .setSender(s)
                        .setTerm(t)
                        .setExpectedNextIndex(i)
                        .setQuerySequenceNumber(1)
                        .setFlowControlSequenceNumber(2)
                        .build()),
        Combinators.combine(group, member, term, term, index)
            .as(
                (g, s, t, lt, li) ->
                    MODEL
                        .createPreVoteRequestBuilder()
                        .setGroupId(g)
                        .setSender(s)
                        .setTerm(t)
                        .setLastLogTerm(lt)
                        .setLastLogIndex(li)
                        .build()),
        Combinators.combine(group, member, term, flag)
            .as(
                (g, s, t, granted) ->
                    MODEL
                        .createPreVoteResponseBuilder()
                        .setGroupId(g)
                        .setSender(s)
                        .setTerm(t)
                        .setGranted(granted)
                        .build()),
        Combinators.combine(group, member, term, term, index, flag)
            .as(
                (g, s, t, lt, li, sticky) ->
                    MODEL
                        .createVoteRequestBuilder()
                        .setGroupId(g)
                        .setSender(s)
                        .setTerm(t)
                        .setLastLogTerm(lt)
                        .setLastLogIndex(li)
                        .setSticky(sticky)
                        .build()),
        Combinators.combine(group, member, term, flag)
            .as(
                (g, s, t, granted) ->
                    MODEL
                        .createVoteResponseBuilder()
                        .setGroupId(g)
                        .setSender(s)
                        .setTerm(t)
                        .setGranted(granted)
                        .build()),
        Combinators.combine(group, member, term, term, index)
            .as(
                (g, s, t, lt, li) ->
                    MODEL
                        .createTriggerLeaderElectionRequestBuilder()
                        .setGroupId(g)
                        .setSender(s)
                        .setTerm(t)
                        .setLastLogTerm(lt)
                        .setLastLogIndex(li)
                        .build()),
        Combinators.combine(
                Combinators.combine(group, member, term, term, flag).as(List::<Object>of),
                index,
                flag,
                Arbitraries.bytes().array(byte[].class).ofMaxSize(64),
                views(member),
                member.list().ofMaxSize(5))
            .as(
                (head, i, withChunk, data, view, snapshotted) ->
                    MODEL
                        .createInstallSnapshotRequestBuilder()
                        .setGroupId((String) head.get(0))
                        .setSender((MemberEndpoint) head.get(1))
                        .setTerm((Integer) head.get(2))
                        .setSenderLeader((Boolean) head.get(4))
                        .setSnapshotTerm((Integer) head.get(3))
                        .setSnapshotIndex(i)
                        .setTotalSnapshotChunkCount(3)
                        .setSnapshotChunk(
                            withChunk
                                ? MODEL
                                    .createSnapshotChunkBuilder()
                                    .setIndex(i)
                                    .setTerm((Integer) head.get(3))
                                    .setOperation(data)
                                    .setSnapshotChunkIndex(1)
                                    .setSnapshotChunkCount(3)
                                    .setGroupMembersView(view)
                                    .build()
                                : null)
                        .setSnapshottedMembers(new ArrayList<RaftEndpoint>(snapshotted))
                        .setGroupMembersView(view)
                        .setQuerySequenceNumber(5)
                        .setFlowControlSequenceNumber(6)
                        .build()),
        Combinators.combine(group, member, term, index)
            .as(
                (g, s, t, i) ->
                    MODEL
                        .createInstallSnapshotResponseBuilder()
                        .setGroupId(g)
                        .setSender(s)
                        .setTerm(t)
                        .setSnapshotIndex(i)
                        .setRequestedSnapshotChunkIndex(2)
                        .setQuerySequenceNumber(7)
                        .setFlowControlSequenceNumber(8)
                        .build()));
  }

  private static Arbitrary<MemberEndpoint> members() {
    return Combinators.combine(
            Arbitraries.strings().withChars("nrab0123é").ofMinLength(1).ofMaxLength(8),
            Arbitraries.of("127.0.0.1", "::1", "node-1.example"),
            Arbitraries.integers().between(1, 65535),
            Arbitraries.integers().between(1, 65535))
        .as(MemberEndpoint::new);
  }

  private static Arbitrary<RaftGroupMembersView> views(Arbitrary<MemberEndpoint> member) {
    return member
        .list()
        .ofMinSize(1)
        .ofMaxSize(5)
        .map(
            list ->
                MODEL
                    .createRaftGroupMembersViewBuilder()
                    .setLogIndex(list.size())
                    .setMembers(new ArrayList<RaftEndpoint>(list))
                    .setVotingMembers(new ArrayList<RaftEndpoint>(list.subList(0, 1)))
                    .build());
  }

  private static Arbitrary<List<LogEntry>> entries(
      Arbitrary<MemberEndpoint> member, Arbitrary<Integer> term) {
    Arbitrary<Object> operation =
        Arbitraries.oneOf(
            Arbitraries.bytes().array(byte[].class).ofMaxSize(200).map(b -> (Object) b),
            Arbitraries.just(NoOp.INSTANCE),
            Combinators.combine(
                    member.list().ofMinSize(1).ofMaxSize(4),
                    member,
                    Arbitraries.of(MembershipChangeMode.class))
                .as(
                    (list, who, mode) ->
                        MODEL
                            .createUpdateRaftGroupMembersOpBuilder()
                            .setMembers(new ArrayList<RaftEndpoint>(list))
                            .setVotingMembers(new ArrayList<RaftEndpoint>(list))
                            .setEndpoint(who)
                            .setMode(mode)
                            .build()));
    return Combinators.combine(Arbitraries.longs().between(1, 1_000_000), term, operation)
        .as(
            (i, t, op) ->
                MODEL.createLogEntryBuilder().setIndex(i).setTerm(t).setOperation(op).build())
        .list()
        .ofMaxSize(12);
  }
}
