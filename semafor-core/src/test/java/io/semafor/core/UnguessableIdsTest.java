package io.semafor.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.semafor.ClientInfo;
import io.semafor.ErrorCode;
import io.semafor.SemaphoreOptions;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.junit.jupiter.api.Test;

/**
 * Session and lease ids (docs/security.md#ids): keyed by the first entropy a session brings, so
 * they cannot be guessed by counting, yet the same log still gives the same ids on every replica
 * and after a restore.
 */
class UnguessableIdsTest {
  private static final long TTL = 10_000_000_000L;
  private static final Secret ENTROPY = new Secret(0x0123456789abcdefL, 0x0fedcba987654321L);
  private static final Name X = Name.of("x");

  private long revision;

  private long open(SemaphoreMachine m, Secret entropy) {
    Outcome o =
        m.apply(
            ++revision,
            0,
            new Command.OpenSession(
                TTL, ClientInfo.NONE, new SessionOwner("alice", Secret.NONE), entropy));
    return ((Result.SessionOpened) Objects.requireNonNull(o.reply()).result()).sessionId();
  }

  private Result request(SemaphoreMachine m, long session, long id, Operation op) {
    return Objects.requireNonNull(
            m.apply(++revision, 0, new Command.Request(session, id, List.of(), op)).reply())
        .result();
  }

  private long lease(SemaphoreMachine m, long session, long id) {
    Result r = request(m, session, id, new Operation.AcquireLease(X, 1, TTL, 0));
    return ((Result.LeaseGranted) r).permitId();
  }

  /** Ten sessions and ten leases, opened with {@code entropy} each time. */
  private List<Long> ids(SemaphoreMachine m, Secret first, Secret later) {
    List<Long> ids = new ArrayList<>();
    long admin = open(m, first);
    ids.add(admin);
    request(m, admin, 1, new Operation.Create(X, 100, SemaphoreOptions.DEFAULT));
    for (int i = 0; i < 9; i++) {
      ids.add(open(m, later));
    }
    for (int i = 0; i < 10; i++) {
      ids.add(lease(m, admin, 2 + i));
    }
    return ids;
  }

  @Test
  void withoutEntropyIdsCountFromOne() {
    List<Long> ids = ids(new SemaphoreMachine(), Secret.NONE, Secret.NONE);
    assertThat(ids.subList(0, 3)).containsExactly(1L, 2L, 3L);
    assertThat(ids.subList(10, 13)).containsExactly(1L, 2L, 3L);
  }

  @Test
  void withEntropyIdsArePositiveDistinctAndFarApart() {
    List<Long> ids = ids(new SemaphoreMachine(), ENTROPY, ENTROPY);
    assertThat(ids).allMatch(id -> id > 0);
    assertThat(ids.subList(0, 10)).doesNotHaveDuplicates();
    assertThat(ids.subList(10, 20)).doesNotHaveDuplicates();
    for (int i = 1; i < 10; i++) {
      assertThat(Math.abs(ids.get(i) - ids.get(i - 1))).isGreaterThan(1L << 20);
    }
  }

  @Test
  void sessionAndLeaseIdsComeFromSequencesApart() {
    List<Long> ids = ids(new SemaphoreMachine(), ENTROPY, ENTROPY);
    // the nth session and the nth lease: one's own session ids must not name others' leases
    assertThat(ids.subList(0, 10)).doesNotContainAnyElementsOf(ids.subList(10, 20));
  }

  @Test
  void theSameLogGivesTheSameIdsOnEveryReplica() {
    assertThat(ids(new SemaphoreMachine(), ENTROPY, ENTROPY))
        .isEqualTo(ids(new SemaphoreMachine(), ENTROPY, ENTROPY));
  }

  @Test
  void onlyTheFirstEntropyKeysTheIds() {
    Secret other = new Secret(7, 8);
    assertThat(ids(new SemaphoreMachine(), ENTROPY, other))
        .isEqualTo(ids(new SemaphoreMachine(), ENTROPY, ENTROPY));
  }

  @Test
  void anotherKeyGivesOtherIds() {
    List<Long> one = ids(new SemaphoreMachine(), ENTROPY, ENTROPY);
    List<Long> two = ids(new SemaphoreMachine(), new Secret(1, 2), ENTROPY);
    assertThat(one).doesNotContainAnyElementsOf(two);
  }

  @Test
  void aRestoredMachineKeepsItsSessionsOwnersAndGoesOnWithTheSameIds() throws IOException {
    SemaphoreMachine original = new SemaphoreMachine();
    ids(original, ENTROPY, ENTROPY);
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    original.writeSnapshot(new DataOutputStream(bytes));
    SemaphoreMachine restored =
        SemaphoreMachine.readSnapshot(
            Limits.DEFAULT, new DataInputStream(new ByteArrayInputStream(bytes.toByteArray())));
    assertThat(restored.sessions()).isEqualTo(original.sessions());
    assertThat(restored.sessions())
        .extracting(started -> started.owner().principal())
        .containsOnly("alice");
    long saved = revision;
    long fromOriginal = open(original, new Secret(9, 9));
    revision = saved;
    assertThat(open(restored, new Secret(9, 9))).isEqualTo(fromOriginal);
  }

  @Test
  void aLeaseNamedOnAnotherSemaphoreIsNeitherRenewedNorReleased() {
    SemaphoreMachine m = new SemaphoreMachine();
    long s = open(m, ENTROPY);
    request(m, s, 1, new Operation.Create(X, 1, SemaphoreOptions.DEFAULT));
    request(m, s, 2, new Operation.Create(Name.of("y"), 1, SemaphoreOptions.DEFAULT));
    long permit = lease(m, s, 3);

    Result renewed = request(m, s, 4, new Operation.RenewLease(permit, TTL, Name.of("y")));
    Result released = request(m, s, 5, new Operation.ReleaseLease(permit, Name.of("y")));

    assertThat(((Result.Failure) renewed).code()).isEqualTo(ErrorCode.NOT_FOUND);
    assertThat(((Result.LeaseReleased) released).released()).isFalse();
    assertThat(
            ((Result.LeaseReleased) request(m, s, 6, new Operation.ReleaseLease(permit, X)))
                .released())
        .isTrue();
  }
}
