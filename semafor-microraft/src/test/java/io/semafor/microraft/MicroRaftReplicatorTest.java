package io.semafor.microraft;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.microraft.impl.RaftNodeImpl;
import io.semafor.SemaphoreOptions;
import io.semafor.core.Command;
import io.semafor.core.Limits;
import io.semafor.core.Name;
import io.semafor.core.Operation;
import io.semafor.core.Outcome;
import io.semafor.core.Query;
import io.semafor.core.Reply;
import io.semafor.core.Result;
import io.semafor.core.SemaphoreMachine;
import io.semafor.embedded.FreePorts;
import io.semafor.replication.ApplyListener;
import io.semafor.replication.Replicator;
import io.semafor.replication.SnapshotFile;
import io.semafor.replication.group.GroupMember;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.locks.LockSupport;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three {@link MicroRaftReplicator}s in this JVM, each on its own loop and ports on 127.0.0.1,
 * applying real commands to real machines.
 */
class MicroRaftReplicatorTest {
  private static final Name X = Name.of("x");
  private static final Duration WAIT = Duration.ofSeconds(20);

  /**
   * Longer than a server's 300 ms: three members, their JITs and the test share one JVM here, and a
   * pause past the timeout at the start would move leadership under a test's first command.
   */
  private static final Duration ELECTION_TIMEOUT = Duration.ofSeconds(1);

  private static final long TTL = 600_000_000_000L;

  @TempDir Path dir = Path.of("set-by-junit");

  private final List<GroupMember> members = new ArrayList<>();
  private final Map<String, MicroRaftReplicator<Object, Object, Object>> running =
      new ConcurrentHashMap<>();
  private final Map<String, Recorder> recorders = new ConcurrentHashMap<>();

  /** What a member's listener heard, in order. */
  static class Recorder implements ApplyListener<Object, Object, Object> {
    final List<Command> applied = new CopyOnWriteArrayList<>();
    final List<Long> revisions = new CopyOnWriteArrayList<>();
    final List<Long> logTimes = new CopyOnWriteArrayList<>();
    final Map<Object, Outcome> outcomes = new ConcurrentHashMap<>();
    final Map<Object, Reply> answers = new ConcurrentHashMap<>();
    final Map<Object, String> refusals = new ConcurrentHashMap<>();
    final List<SnapshotFile.Image> snapshots = new CopyOnWriteArrayList<>();
    final List<SemaphoreMachine> restored = new CopyOnWriteArrayList<>();

    @Override
    public void applied(Command command, @Nullable Object context, Outcome outcome, long logTime) {
      applied.add(command);
      revisions.add(outcome.revision());
      logTimes.add(logTime);
      if (context != null) {
        outcomes.put(context, outcome);
      }
    }

    @Override
    public void answered(Query query, @Nullable Object context, Reply reply, long logTime) {
      if (context != null) {
        answers.put(context, reply);
      }
    }

    @Override
    public void refused(Command command, @Nullable Object context, String leaderHint) {
      if (context != null) {
        refusals.put(context, leaderHint);
      }
    }

    @Override
    public void readRefused(Query query, @Nullable Object context, String leaderHint) {
      if (context != null) {
        refusals.put(context, leaderHint);
      }
    }

    @Override
    public void snapshotTaken(@Nullable Object context, SnapshotFile.Image image) {
      snapshots.add(image);
    }

    @Override
    public void restored(SemaphoreMachine machine, long logTime) {
      restored.add(machine);
    }
  }

  @AfterEach
  void stopEveryMember() {
    running.values().forEach(MicroRaftReplicator::close);
  }

  @Test
  void everyMemberAppliesTheLeadersCommandsInTheSameOrder() {
    startGroup(3, Map.of());
    MicroRaftReplicator<Object, Object, Object> leader = awaitLeader();
    long session = openSession(leader);
    submitAndAwait(
        leader, request(session, 1, new Operation.Create(X, 0, SemaphoreOptions.DEFAULT)));
    for (long id = 2; id <= 201; id++) {
      leader.submit(request(session, id, new Operation.Increment(X, 1)), "inc-" + id);
    }

    assertThat(readValue(leader)).isEqualTo(200);
    Recorder leaders = recorderOf(leader.leaderId());
    for (Recorder r : recorders.values()) {
      await().atMost(WAIT).until(() -> r.applied.size() == leaders.applied.size());
      assertThat(r.applied).isEqualTo(leaders.applied);
      assertThat(r.revisions).isEqualTo(leaders.revisions).isSorted().doesNotHaveDuplicates();
    }
  }

  @Test
  void commandsFromManyThreadsAreAppliedInEachThreadsOrder() throws InterruptedException {
    startGroup(3, Map.of("microraft.entries-in-flight", "4"));
    MicroRaftReplicator<Object, Object, Object> leader = awaitLeader();
    int threads = 4;
    int perThread = 500;
    long[] sessions = new long[threads];
    for (int t = 0; t < threads; t++) {
      sessions[t] = openSession(leader);
    }
    submitAndAwait(
        leader, request(sessions[0], 1, new Operation.Create(X, 0, SemaphoreOptions.DEFAULT)));
    List<Thread> workers = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      long session = sessions[t];
      long first = t == 0 ? 2 : 1;
      Thread worker =
          new Thread(
              () -> {
                for (long id = first; id < first + perThread; id++) {
                  leader.submit(request(session, id, new Operation.Increment(X, 1)), null);
                }
              });
      worker.start();
      workers.add(worker);
    }
    for (Thread w : workers) {
      w.join(WAIT.toMillis());
    }

    assertThat(readValue(leader)).isEqualTo((long) threads * perThread);
    for (Recorder r : recorders.values()) {
      await().atMost(WAIT).until(() -> incrementsIn(r) == (long) threads * perThread);
      for (long session : sessions) {
        assertThat(requestIdsOf(r, session)).isSorted().doesNotHaveDuplicates();
      }
    }
  }

  @Test
  void aFollowerRefusesCommandsAndReadsWithTheLeadersClientAddress() {
    startGroup(3, Map.of());
    MicroRaftReplicator<Object, Object, Object> leader = awaitLeader();
    MicroRaftReplicator<Object, Object, Object> follower = aFollower();
    await().atMost(WAIT).until(() -> follower.leaderId().equals(leader.leaderId()));
    String leaderAddress = memberById(leader.leaderId()).clientAddress();
    Recorder heard = recorderOf(idOf(follower));

    follower.submit(new Command.OpenSession(TTL), "open");
    follower.read(new Query.Get(X), "read");

    assertThat(heard.refusals)
        .containsEntry("open", leaderAddress)
        .containsEntry("read", leaderAddress);
    assertThat(follower.isLeader()).isFalse();
    assertThat(follower.leaderHint()).isEqualTo(leaderAddress);
  }

  @Test
  void whenTheLeaderStopsAnotherMemberLeadsFromTheSameState() {
    startGroup(3, Map.of());
    MicroRaftReplicator<Object, Object, Object> first = awaitLeader();
    long session = openSession(first);
    submitAndAwait(
        first, request(session, 1, new Operation.Create(X, 7, SemaphoreOptions.DEFAULT)));
    String firstId = idOf(first);
    List<Long> appliedTimes = recorderOf(firstId).logTimes;
    long lastApplied = appliedTimes.get(appliedTimes.size() - 1);

    running.remove(firstId).close();
    MicroRaftReplicator<Object, Object, Object> second = awaitLeader();

    assertThat(idOf(second)).isNotEqualTo(firstId);
    // log time never runs backwards across leaders: it goes on from the last applied command's
    assertThat(second.logTime()).isGreaterThanOrEqualTo(lastApplied);
    submitAndAwait(second, request(session, 2, new Operation.Increment(X, 1)));
    assertThat(readValue(second)).isEqualTo(8);
  }

  @Test
  void followersStuckInAPreVoteStillElectWhenTheirLeaderFallsSilent() {
    startGroup(3, Map.of());
    MicroRaftReplicator<Object, Object, Object> first = awaitLeader();
    long session = openSession(first);
    submitAndAwait(
        first, request(session, 1, new Operation.Create(X, 7, SemaphoreOptions.DEFAULT)));
    String firstId = idOf(first);
    // the state MicroRaft 0.7 can leave a follower in (decision 0044): a pre-vote of its own that
    // is never cleared, so its heartbeat task never gives the leader up
    for (MicroRaftReplicator<Object, Object, Object> follower : running.values()) {
      if (follower != first) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        follower
            .nodeLoop()
            .execute(
                () -> {
                  ((RaftNodeImpl) follower.raftNode()).state().initPreCandidateState();
                  done.complete(null);
                });
        done.join();
      }
    }

    running.remove(firstId).close();
    MicroRaftReplicator<Object, Object, Object> second = awaitLeader();

    assertThat(idOf(second)).isNotEqualTo(firstId);
    submitAndAwait(second, request(session, 2, new Operation.Increment(X, 1)));
    assertThat(readValue(second)).isEqualTo(8);
    long started =
        running.values().stream()
            .mapToLong(r -> (Long) r.status().getOrDefault("silentLeaderElections", 0L))
            .sum();
    assertThat(started).isPositive();
  }

  @Test
  void aMemberThatStartsAfterASnapshotCatchesUpFromIt() {
    Map<String, String> often = Map.of("microraft.snapshot-every", "20");
    addMembers(3);
    start("n1", often);
    start("n2", often);
    MicroRaftReplicator<Object, Object, Object> leader = awaitLeader();
    long session = openSession(leader);
    submitAndAwait(
        leader, request(session, 1, new Operation.Create(X, 0, SemaphoreOptions.DEFAULT)));
    for (long id = 2; id <= 100; id++) {
      submitAndAwait(leader, request(session, id, new Operation.Increment(X, 1)));
    }

    start("n3", often);
    Recorder late = recorderOf("n3");
    await().atMost(WAIT).until(() -> !late.restored.isEmpty());
    submitAndAwait(leader, request(session, 101, new Operation.Increment(X, 1)));

    await()
        .atMost(WAIT)
        .until(() -> late.applied.contains(request(session, 101, new Operation.Increment(X, 1))));
    Recorder leaders = recorderOf(idOf(leader));
    assertThat(late.revisions.get(late.revisions.size() - 1))
        .isEqualTo(leaders.revisions.get(leaders.revisions.size() - 1));
    assertThat(late.restored.get(0).semaphoreCount()).isEqualTo(1);
  }

  @Test
  void aSnapshotIsTakenOnTheLeaderWhereItFallsAmongTheCommands() throws IOException {
    startGroup(3, Map.of());
    MicroRaftReplicator<Object, Object, Object> leader = awaitLeader();
    long session = openSession(leader);
    leader.submit(request(session, 1, new Operation.Create(X, 3, SemaphoreOptions.DEFAULT)), null);
    leader.snapshot("snap");
    Recorder heard = recorderOf(idOf(leader));

    await().atMost(WAIT).until(() -> heard.snapshots.size() == 1);
    SnapshotFile.Image image = heard.snapshots.get(0);
    SnapshotFile.Loaded loaded =
        SnapshotFile.read(Arrays.copyOf(image.bytes(), image.length()), Limits.DEFAULT);
    assertThat(loaded.machine().semaphoreCount()).isEqualTo(1);
    for (String id : List.of("n1", "n2", "n3")) {
      if (!id.equals(idOf(leader))) {
        assertThat(recorderOf(id).snapshots).isEmpty();
      }
    }
  }

  /**
   * MicroRaft 0.7's known defect (fixed upstream in d300e13, released only as 0.8, which Maven
   * Central does not have): a follower whose log is a snapshot at S plus entries nobody else has
   * cannot check an append that follows entry S — 0.7's handler looks for entry S in the log, where
   * the snapshot folded it — and the snapshot the leader sends instead, at S, is ignored as already
   * committed. A leader that took its snapshot, appended one entry, and restarted after losing
   * leadership is left behind this way, reachable but applying nothing, until the new leader's next
   * snapshot (here 20 entries; 50,000 by default) reaches past it. This pins the defect: when
   * MicroRaft is upgraded past it, the former leader catches up at once and this test fails.
   */
  @Test
  void aFormerLeaderWithASnapshotAndAnEntryNobodyHasCatchesUpOnlyAtTheNewLeadersNextSnapshot() {
    Map<String, String> often = Map.of("microraft.snapshot-every", "20");
    startGroup(3, often);
    MicroRaftReplicator<Object, Object, Object> first = awaitLeader();
    String firstId = idOf(first);
    long session = openSession(first);
    submitAndAwait(
        first, request(session, 1, new Operation.Create(X, 0, SemaphoreOptions.DEFAULT)));
    long id = 2;
    while (snapshotIndex(first) == 0) { // one at a time: the snapshot falls on the last entry
      submitAndAwait(first, request(session, id++, new Operation.Increment(X, 1)));
    }
    long snapshot = snapshotIndex(first);
    assertThat(first.status()).containsEntry("lastLogIndex", snapshot);
    await()
        .atMost(WAIT)
        .until(() -> running.values().stream().allMatch(r -> snapshotIndex(r) == snapshot));
    List<String> followers = new ArrayList<>(running.keySet());
    followers.remove(firstId);
    // both at once: the leader, cut off, steps down after the election timeout (1 s here), and the
    // entry below must reach its log before that
    CompletableFuture.allOf(
            followers.stream()
                .map(f -> CompletableFuture.runAsync(() -> running.remove(f).close()))
                .toArray(CompletableFuture[]::new))
        .join();
    first.submit(request(session, id++, new Operation.Increment(X, 1)), new Object());
    await().atMost(WAIT).until(() -> lastLogIndex(first) == snapshot + 1); // nobody else has it
    running.remove(firstId).close();

    for (String f : followers) {
      start(f, often);
    }
    MicroRaftReplicator<Object, Object, Object> second = awaitLeader();
    Command after = request(session, id++, new Operation.Increment(X, 1));
    submitAndAwait(second, after);
    start(firstId, often);
    Recorder former = recorderOf(firstId);

    // behind, though it runs and hears the leader: nothing after the snapshot is applied
    await()
        .during(Duration.ofSeconds(3))
        .atMost(Duration.ofSeconds(5))
        .until(() -> !former.applied.contains(after));
    assertThat(member(firstId).isLeader()).isFalse();

    // the new leader's next snapshot lies past the former leader's commit: installed, it catches up
    long next = snapshotIndex(second);
    while (snapshotIndex(second) == next) {
      submitAndAwait(second, request(session, id++, new Operation.Increment(X, 1)));
    }
    Command caughtUp = request(session, id, new Operation.Increment(X, 1));
    submitAndAwait(second, caughtUp);
    await().atMost(WAIT).until(() -> former.applied.contains(caughtUp));
  }

  private static long snapshotIndex(MicroRaftReplicator<Object, Object, Object> r) {
    return ((Number) r.status().getOrDefault("snapshotIndex", 0L)).longValue();
  }

  private static long lastLogIndex(MicroRaftReplicator<Object, Object, Object> r) {
    return ((Number) r.status().getOrDefault("lastLogIndex", 0L)).longValue();
  }

  @Test
  void aMemberThatStopsComesBackFromItsLogAndCatchesUp() {
    startGroup(3, Map.of());
    MicroRaftReplicator<Object, Object, Object> leader = awaitLeader();
    long session = openSession(leader);
    submitAndAwait(
        leader, request(session, 1, new Operation.Create(X, 0, SemaphoreOptions.DEFAULT)));
    String stopped = idOf(aFollower());
    running.remove(stopped).close();
    for (long id = 2; id <= 11; id++) {
      submitAndAwait(leader, request(session, id, new Operation.Increment(X, 1)));
    }

    start(stopped, Map.of());
    Recorder back = recorderOf(stopped);
    Command last = request(session, 11, new Operation.Increment(X, 1));

    // it applies its own log again, then what it missed
    await().atMost(WAIT).until(() -> back.applied.contains(last));
    Recorder leaders = recorderOf(idOf(leader));
    assertThat(back.revisions.get(back.revisions.size() - 1))
        .isEqualTo(leaders.revisions.get(leaders.revisions.size() - 1));
  }

  @Test
  void whenEveryMemberRestartsTheGroupGoesOnFromItsLogs() {
    startGroup(3, Map.of());
    MicroRaftReplicator<Object, Object, Object> leader = awaitLeader();
    long session = openSession(leader);
    submitAndAwait(
        leader, request(session, 1, new Operation.Create(X, 5, SemaphoreOptions.DEFAULT)));
    submitAndAwait(leader, request(session, 2, new Operation.Increment(X, 2)));
    for (String id : List.of("n1", "n2", "n3")) {
      running.remove(id).close();
    }

    for (String id : List.of("n1", "n2", "n3")) {
      start(id, Map.of());
    }
    MicroRaftReplicator<Object, Object, Object> again = awaitLeader();

    assertThat(readValue(again)).isEqualTo(7);
    submitAndAwait(again, request(session, 3, new Operation.Increment(X, 1)));
    assertThat(readValue(again)).isEqualTo(8);
  }

  @Test
  void aLogWrittenByAnotherMemberIsRefused() {
    startGroup(2, Map.of());
    awaitLeader();
    running.remove("n1").close();
    running.remove("n2").close();
    MicroRaftConfig wrong =
        MicroRaftConfig.of("n2", members, dir.resolve("n1"), false, ELECTION_TIMEOUT);

    assertThatThrownBy(
            () -> MicroRaftReplicator.start(wrong, new SemaphoreMachine(), new Recorder()))
        .isInstanceOf(java.io.UncheckedIOException.class)
        .hasMessageContaining("holds the log of member n1, not n2");
  }

  // ------------------------------------------------------------------ membership

  @Test
  void aNodeStartedToJoinIsAddedCaughtUpAndThenVotes() {
    startGroup(3, Map.of());
    MicroRaftReplicator<Object, Object, Object> leader = awaitLeader();
    long session = openSession(leader);
    submitAndAwait(
        leader, request(session, 1, new Operation.Create(X, 0, SemaphoreOptions.DEFAULT)));
    for (long id = 2; id <= 30; id++) {
      submitAndAwait(leader, request(session, id, new Operation.Increment(X, 1)));
    }
    GroupMember n4 = newMember("n4");
    startJoining("n4");
    assertThat(member("n4").status()).containsEntry("role", "joining");

    List<String> after = leader.addMember(n4.toString());

    assertThat(after).containsExactly("n1", "n2", "n3", "n4");
    assertThat(leader.status()).containsEntry("learners", "");
    await().atMost(WAIT).until(() -> incrementsIn(recorderOf("n4")) == 29);
    // four voting members: a majority is three, so without the leader the group elects and
    // commits only if n4 votes
    running.remove(idOf(leader)).close();
    MicroRaftReplicator<Object, Object, Object> second = awaitLeader();
    submitAndAwait(second, request(session, 31, new Operation.Increment(X, 1)));
    assertThat(readValue(second)).isEqualTo(30);
  }

  @Test
  void aMemberThatDoesNotLeadPassesAChangeToTheLeader() {
    startGroup(3, Map.of());
    awaitLeader();
    GroupMember n4 = newMember("n4");
    startJoining("n4");

    List<String> after = aFollower().addMember(n4.toString());

    assertThat(after).containsExactly("n1", "n2", "n3", "n4");
    await()
        .atMost(WAIT)
        .until(() -> member("n4").status().get("role"), role -> role.equals("follower"));
  }

  @Test
  void aRemovedFollowerLeadsNoOneAndTheOthersGoOn() {
    startGroup(3, Map.of());
    MicroRaftReplicator<Object, Object, Object> leader = awaitLeader();
    long session = openSession(leader);
    MicroRaftReplicator<Object, Object, Object> follower = aFollower();
    String followerId = idOf(follower);

    List<String> after = leader.removeMember(followerId);

    assertThat(after).hasSize(2).doesNotContain(followerId);
    // the leader stops sending to it as soon as it appends the change, so the removed member
    // never learns its own removal is committed: it stays a follower that no one follows
    submitAndAwait(
        leader, request(session, 1, new Operation.Create(X, 3, SemaphoreOptions.DEFAULT)));
    assertThat(readValue(leader)).isEqualTo(3);
    assertThat(follower.isLeader()).isFalse();
    assertThat(leader.status()).containsEntry("members", String.join(",", after));
  }

  @Test
  void aLeaderAskedToRemoveItselfHandsLeadershipOverFirst() {
    startGroup(3, Map.of());
    MicroRaftReplicator<Object, Object, Object> first = awaitLeader();
    long session = openSession(first);
    String firstId = idOf(first);

    List<String> after = first.removeMember(firstId);

    assertThat(after).hasSize(2).doesNotContain(firstId);
    MicroRaftReplicator<Object, Object, Object> second = awaitLeader();
    assertThat(idOf(second)).isNotEqualTo(firstId);
    submitAndAwait(
        second, request(session, 1, new Operation.Create(X, 5, SemaphoreOptions.DEFAULT)));
    assertThat(readValue(second)).isEqualTo(5);
  }

  @Test
  void aChangeNamingNoMemberOrAMemberTwiceIsRefusedAndChangesNothing() {
    startGroup(3, Map.of());
    MicroRaftReplicator<Object, Object, Object> leader = awaitLeader();

    assertThatThrownBy(() -> leader.removeMember("n9"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("member: n9 is not a member");
    assertThatThrownBy(() -> leader.addMember(memberById("n2").toString()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("member: n2 is already a member");
    assertThatThrownBy(() -> aFollower().addMember("n5=nowhere"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("member: 'n5=nowhere' is not id=host:clientPort:raftPort");
    assertThat(leader.status()).containsEntry("members", "n1,n2,n3");
  }

  @Test
  void addingANodeThatDoesNotAnswerChangesNothing() {
    startGroup(3, Map.of());
    MicroRaftReplicator<Object, Object, Object> leader = awaitLeader();
    GroupMember nobody = newMember("n5"); // nothing listens on its ports

    assertThatThrownBy(() -> leader.addMember(nobody.toString()))
        .isInstanceOf(IllegalStateException.class)
        .isNotInstanceOf(Replicator.MembershipChangeUnknownException.class)
        .hasMessageContaining("n5 did not answer")
        .hasMessageContaining("nothing changed");
    assertThat(leader.status()).containsEntry("members", "n1,n2,n3");
  }

  @Test
  void aJoinedMemberStartedAgainComesBackFromItsLog() {
    startGroup(3, Map.of());
    MicroRaftReplicator<Object, Object, Object> leader = awaitLeader();
    long session = openSession(leader);
    submitAndAwait(
        leader, request(session, 1, new Operation.Create(X, 0, SemaphoreOptions.DEFAULT)));
    GroupMember n4 = newMember("n4");
    startJoining("n4");
    leader.addMember(n4.toString());
    running.remove("n4").close();
    for (long id = 2; id <= 11; id++) {
      submitAndAwait(leader, request(session, id, new Operation.Increment(X, 1)));
    }

    startJoining("n4"); // its log says it is a member: --join no longer applies

    assertThat(member("n4").status().get("role")).isNotEqualTo("joining");
    await().atMost(WAIT).until(() -> incrementsIn(recorderOf("n4")) == 10);
  }

  /**
   * Starting installs the state the log restored, on the member's thread; a million semaphores
   * restored into three members on two cores took more than the 5 s that start used to allow, and
   * every member failed with "did not start" (semafor-bench/snapshot-pause.sh). Here the install is
   * held for 6 s: the member still starts, and holds the restored state.
   */
  @Test
  void aMemberWhoseRestoredStateTakesLongerThanFiveSecondsToInstallStillStarts() throws Exception {
    GroupMember only = newMember("n1");
    SemaphoreMachine backup = new SemaphoreMachine();
    backup.apply(1, 0, new Command.OpenSession(60_000_000_000L));
    SnapshotFile.Image image = SnapshotFile.take(backup, -1, -1, System.currentTimeMillis());
    MicroRaftSeed.seed(
        dir.resolve("n1"),
        SnapshotFile.read(Arrays.copyOf(image.bytes(), image.length()), Limits.DEFAULT),
        "n1",
        List.of(only));
    Recorder slow =
        new Recorder() {
          @Override
          public void restored(SemaphoreMachine machine, long logTime) {
            LockSupport.parkNanos(Duration.ofSeconds(6).toNanos()); // a large state's install
            super.restored(machine, logTime);
          }
        };
    MicroRaftReplicator<Object, Object, Object> r =
        MicroRaftReplicator.start(
            MicroRaftConfig.of("n1", List.of(only), dir.resolve("n1"), false, ELECTION_TIMEOUT),
            new SemaphoreMachine(),
            slow);
    running.put("n1", r);
    recorders.put("n1", slow);

    assertThat(slow.restored).hasSize(1);
    assertThat(slow.restored.get(0).sessionCount()).isEqualTo(1);
  }

  // ------------------------------------------------------------------ helpers

  private GroupMember newMember(String id) {
    GroupMember m = new GroupMember(id, "127.0.0.1", freePort(), freePort());
    members.add(m);
    return m;
  }

  /** Starts {@code id} as {@code semafor server --join} does: its config names only itself. */
  private void startJoining(String id) {
    MicroRaftConfig config =
        MicroRaftConfig.of(id, List.of(memberById(id)), dir.resolve(id), false, ELECTION_TIMEOUT)
            .joining();
    Recorder recorder = new Recorder();
    MicroRaftReplicator<Object, Object, Object> r =
        MicroRaftReplicator.start(config, new SemaphoreMachine(), recorder);
    recorders.put(id, recorder);
    running.put(id, r);
  }

  private void startGroup(int n, Map<String, String> properties) {
    addMembers(n);
    for (GroupMember m : members) {
      start(m.id(), properties);
    }
  }

  private void addMembers(int n) {
    for (int i = 1; i <= n; i++) {
      members.add(new GroupMember("n" + i, "127.0.0.1", freePort(), freePort()));
    }
  }

  /** Starts member {@code id} on its data directory (again, if it ran before). */
  private void start(String id, Map<String, String> properties) {
    MicroRaftConfig config =
        MicroRaftConfig.of(id, members, dir.resolve(id), false, ELECTION_TIMEOUT)
            .withProperties(properties);
    Recorder recorder = new Recorder();
    MicroRaftReplicator<Object, Object, Object> r =
        MicroRaftReplicator.start(config, new SemaphoreMachine(), recorder);
    recorders.put(id, recorder);
    running.put(id, r);
  }

  private MicroRaftReplicator<Object, Object, Object> member(String id) {
    return java.util.Objects.requireNonNull(running.get(id), id);
  }

  private Recorder recorderOf(String id) {
    return java.util.Objects.requireNonNull(recorders.get(id), id);
  }

  private MicroRaftReplicator<Object, Object, Object> awaitLeader() {
    return await()
        .atMost(WAIT)
        .until(
            () -> running.values().stream().filter(MicroRaftReplicator::isLeader).findFirst(),
            java.util.Optional::isPresent)
        .orElseThrow();
  }

  private MicroRaftReplicator<Object, Object, Object> aFollower() {
    return running.values().stream().filter(r -> !r.isLeader()).findFirst().orElseThrow();
  }

  private String idOf(MicroRaftReplicator<Object, Object, Object> r) {
    return running.entrySet().stream()
        .filter(e -> e.getValue() == r)
        .map(Map.Entry::getKey)
        .findFirst()
        .orElseThrow();
  }

  private GroupMember memberById(String id) {
    return members.stream().filter(m -> m.id().equals(id)).findFirst().orElseThrow();
  }

  private long openSession(MicroRaftReplicator<Object, Object, Object> leader) {
    Outcome outcome = submitAndAwait(leader, new Command.OpenSession(TTL));
    Reply reply = outcome.reply();
    assertThat(reply).isNotNull();
    return ((Result.SessionOpened) reply.result()).sessionId();
  }

  /**
   * Submits {@code command} to {@code leader} and returns its outcome; a command refused because
   * leadership moved meanwhile (members started together may hold a second election right after the
   * first) is submitted again to the new leader, at most three times.
   */
  private Outcome submitAndAwait(
      MicroRaftReplicator<Object, Object, Object> leader, Command command) {
    MicroRaftReplicator<Object, Object, Object> to = leader;
    for (int attempt = 1; ; attempt++) {
      Object context = new Object();
      to.submit(command, context);
      Recorder r = recorderOf(idOf(to));
      await()
          .atMost(WAIT)
          .until(() -> r.outcomes.containsKey(context) || r.refusals.containsKey(context));
      Outcome outcome = r.outcomes.get(context);
      if (outcome != null) {
        return outcome;
      }
      assertThat(attempt).as("refused %d times: %s", attempt, command).isLessThan(3);
      to = awaitLeader();
    }
  }

  private long readValue(MicroRaftReplicator<Object, Object, Object> leader) {
    Object context = new Object();
    leader.read(new Query.Get(X), context);
    Recorder r = recorderOf(idOf(leader));
    Reply reply = await().atMost(WAIT).until(() -> r.answers.get(context), a -> a != null);
    return ((Result.SemaphoreStatus) reply.result()).value();
  }

  private static Command.Request request(long session, long id, Operation operation) {
    return new Command.Request(session, id, List.of(), operation);
  }

  private static long incrementsIn(Recorder r) {
    return r.applied.stream()
        .filter(c -> c instanceof Command.Request q && q.operation() instanceof Operation.Increment)
        .count();
  }

  private static List<Long> requestIdsOf(Recorder r, long session) {
    List<Long> ids = new ArrayList<>();
    for (Command c : r.applied) {
      if (c instanceof Command.Request q && q.sessionId() == session) {
        ids.add(q.requestId());
      }
    }
    return ids;
  }

  private static int freePort() {
    return FreePorts.next();
  }
}
