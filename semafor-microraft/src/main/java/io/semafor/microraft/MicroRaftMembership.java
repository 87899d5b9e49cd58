package io.semafor.microraft;

import io.microraft.MembershipChangeMode;
import io.microraft.Ordered;
import io.microraft.RaftEndpoint;
import io.microraft.RaftNode;
import io.microraft.RaftRole;
import io.microraft.report.RaftGroupMembers;
import io.microraft.report.RaftNodeReport;
import io.semafor.replication.Replicator.MembershipChangeUnknownException;
import io.semafor.replication.group.GroupMember;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Changes to a MicroRaft group's members, one member at a time, each call blocking until the change
 * is committed or has failed (decision 0045).
 *
 * <p><b>Adding</b> a node started with {@code --join}: the leader first welcomes it with the
 * group's first members ({@link GroupControl.Welcome}), which the node needs to start its Raft
 * member; then adds it as a learner (it does not count towards a majority yet), waits until it has
 * every entry committed when it was added (from the log, or from a snapshot if the log was
 * compacted past what it has), and only then makes it a voting member. A node that does not catch
 * up within the time allowed is removed again, so a slow or broken node never weakens the majority.
 *
 * <p><b>Removing</b> a member: the leader removes it. A leader asked to remove itself first hands
 * leadership to the follower furthest ahead, and the new leader removes it.
 *
 * <p>Each step is a compare-and-set on the members this member saw committed: a change made
 * meanwhile by someone else makes this one fail rather than undo it. A member that does not lead
 * passes the change to the leader ({@link GroupControl.ChangeMembers}) and waits for its answer.
 *
 * <p>Thread-safe. The blocking calls run on the caller's thread; changes passed on by other members
 * run on a thread of this class's own, never on the node's loop.
 */
final class MicroRaftMembership implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(MicroRaftMembership.class);

  /** How long a change may take, catching the new member up included. */
  static final Duration TIMEOUT = Duration.ofSeconds(60);

  /** How long a node waiting to join has to answer its welcome. */
  private static final Duration WELCOME_TIMEOUT = Duration.ofSeconds(10);

  /**
   * How much longer than the leader's own time a member waits for a change it passed on, and how
   * long it waits to learn of a change the leader committed.
   */
  private static final Duration SETTLES = Duration.ofSeconds(3);

  private static final long POLL_MILLIS = 20;

  private final MemberEndpoint self;
  private final Supplier<@Nullable RaftNode> node;
  private final PeerTransport transport;

  /**
   * Request ids: from a random start, so that a late answer to a process before a restart matches
   * nothing.
   */
  private final AtomicLong ids = new AtomicLong(new java.security.SecureRandom().nextLong() >>> 1);

  private final Map<Long, Awaited> awaiting = new ConcurrentHashMap<>();

  /** A request waiting for its answer: from whom, and of which kind. */
  private record Awaited(
      MemberEndpoint from,
      Class<? extends GroupControl> kind,
      CompletableFuture<GroupControl> answer) {}

  private volatile boolean closed;
  private final ExecutorService passedOn;

  /**
   * @param node this member's Raft node, or null while it waits to join
   */
  MicroRaftMembership(
      MemberEndpoint self, Supplier<@Nullable RaftNode> node, PeerTransport transport) {
    this.self = self;
    this.node = node;
    this.transport = transport;
    this.passedOn =
        Executors.newSingleThreadExecutor(
            r -> {
              Thread t = new Thread(r, "semafor-membership-" + self.id());
              t.setDaemon(true);
              return t;
            });
  }

  // ------------------------------------------------------------------ asked by an operator

  /**
   * Adds the member given as {@code id=host:clientPort:raftPort}, started with {@code --join};
   * returns every member's id after.
   *
   * @throws IllegalArgumentException naming {@code member} if it is malformed or already a member
   * @throws IllegalStateException if the group refused the change, or the node did not answer or
   *     did not catch up (nothing changed)
   * @throws MembershipChangeUnknownException if it was not committed in time: it may still be
   */
  List<String> add(String member) {
    GroupMember parsed = GroupMember.parse("member", member);
    RaftNode n = running();
    MemberEndpoint joining = MemberEndpoint.of(parsed);
    boolean wasAbsent = !hasMember(n.getCommittedMembers(), parsed.id());
    try {
      if (!leads(n)) {
        return passOn(GroupControl.Change.ADD, parsed.toString());
      }
      try {
        return addAsLeader(n, parsed);
      } catch (LeadershipMoved e) {
        return passOn(GroupControl.Change.ADD, parsed.toString());
      }
    } catch (IllegalArgumentException e) {
      // passed on, or asked again, and found already made: by this very call, or by another one
      // asking the same (the same members are the same outcome, whoever made them)
      if (wasAbsent && settles(n, m -> m.getVotingMembers().contains(joining))) {
        return idsOf(n.getCommittedMembers());
      }
      throw e;
    }
  }

  private List<String> addAsLeader(RaftNode n, GroupMember parsed) {
    long deadline = System.nanoTime() + TIMEOUT.toNanos();
    MemberEndpoint joining = MemberEndpoint.of(parsed);
    RaftGroupMembers committed = n.getCommittedMembers();
    Ordered<RaftGroupMembers> learner;
    if (committed.getMembers().contains(joining)
        && !committed.getVotingMembers().contains(joining)) {
      // a learner already: an earlier call added it and was given up on; go on from there
      learner = new MadeMeanwhile(committed);
    } else {
      for (RaftEndpoint e : committed.getMembers()) {
        if (idOf(e).equals(parsed.id())) {
          throw new IllegalArgumentException("member: " + parsed.id() + " is already a member");
        }
      }
      // MicroRaft's own refusals of a learner, checked before the welcome binds the node to the
      // group for nothing
      if (n.getInitialMembers().getMembers().contains(joining)) {
        throw new IllegalArgumentException(
            "member: "
                + parsed
                + " was one of the group's first members; MicroRaft takes it back only under"
                + " another id or port");
      }
      if (committed.getMembers().size() - committed.getVotingMembers().size()
          >= RaftGroupMembers.MAX_LEARNER_COUNT) {
        throw new IllegalStateException(
            "members are being added already (learners catching up); try again when they vote");
      }
      welcome(n, joining);
      learner =
          change(n, joining, MembershipChangeMode.ADD_LEARNER, committed.getLogIndex(), deadline);
    }
    log.info("{} added {} as a learner; catching it up", self.id(), parsed);
    if (!caughtUp(n, joining, learner.getCommitIndex(), deadline)) {
      Ordered<RaftGroupMembers> back =
          change(
              n,
              joining,
              MembershipChangeMode.REMOVE_MEMBER,
              learner.getResult().getLogIndex(),
              System.nanoTime() + TIMEOUT.toNanos());
      throw new IllegalStateException(
          parsed.id()
              + " did not catch up within "
              + TIMEOUT.toSeconds()
              + " s and was removed again; the members are "
              + String.join(",", idsOf(back.getResult())));
    }
    Ordered<RaftGroupMembers> voter =
        change(
            n,
            joining,
            MembershipChangeMode.ADD_OR_PROMOTE_TO_FOLLOWER,
            learner.getResult().getLogIndex(),
            deadline);
    log.info("{} made {} a voting member", self.id(), parsed);
    return idsOf(voter.getResult());
  }

  /**
   * Removes the member with this id; returns every member's id after.
   *
   * @throws IllegalArgumentException naming {@code member} if no member has this id, or it is the
   *     last voting member
   * @throws IllegalStateException if the group refused the change
   * @throws MembershipChangeUnknownException if it was not committed in time: it may still be
   */
  List<String> remove(String id) {
    RaftNode n = running();
    boolean wasMember = hasMember(n.getCommittedMembers(), id);
    try {
      return removeHere(n, id);
    } catch (IllegalArgumentException e) {
      // passed on, or asked again, and found already made: by this very call, or by another one
      if (wasMember && settles(n, m -> !hasMember(m, id))) {
        return idsOf(n.getCommittedMembers());
      }
      throw e;
    }
  }

  private List<String> removeHere(RaftNode n, String id) {
    if (!leads(n)) {
      return passOn(GroupControl.Change.REMOVE, id);
    }
    RaftGroupMembers committed = n.getCommittedMembers();
    RaftEndpoint gone = null;
    for (RaftEndpoint e : committed.getMembers()) {
      if (idOf(e).equals(id)) {
        gone = e;
      }
    }
    if (gone == null) {
      throw new IllegalArgumentException("member: " + id + " is not a member");
    }
    if (committed.getVotingMembers().size() == 1 && committed.getVotingMembers().contains(gone)) {
      throw new IllegalArgumentException("member: " + id + " is the last voting member");
    }
    if (gone.equals(self)) {
      stepDown(n, committed);
      return passOn(GroupControl.Change.REMOVE, id);
    }
    try {
      Ordered<RaftGroupMembers> after =
          change(
              n,
              gone,
              MembershipChangeMode.REMOVE_MEMBER,
              committed.getLogIndex(),
              System.nanoTime() + TIMEOUT.toNanos());
      return idsOf(after.getResult());
    } catch (LeadershipMoved e) {
      return passOn(GroupControl.Change.REMOVE, id);
    }
  }

  // ------------------------------------------------------------------ from other members

  /** A control message from another member; on the node's loop. */
  void received(GroupControl message) {
    if (message instanceof GroupControl.ChangeMembers change) {
      long arrived = System.nanoTime();
      try {
        passedOn.execute(() -> answer(change, arrived));
      } catch (RejectedExecutionException e) {
        // closing: the asking member gives up at its deadline
      }
    } else {
      Awaited waiting = awaiting.get(message.id());
      if (waiting != null
          && waiting.from().equals(message.sender())
          && waiting.kind().isInstance(message)
          && awaiting.remove(message.id(), waiting)) {
        waiting.answer().complete(message);
      }
    }
  }

  /** Makes a change another member passed on, and answers it. */
  private void answer(GroupControl.ChangeMembers change, long arrived) {
    if (System.nanoTime() - arrived > TimeUnit.MILLISECONDS.toNanos(change.waitMillis())) {
      // queued behind other changes past what the asker waits: it has said "unknown" already
      log.warn(
          "{} drops a {} of {} from {}: it waited past the {} ms its asker waits",
          self.id(),
          change.change(),
          change.argument(),
          change.sender().id(),
          change.waitMillis());
      return;
    }
    GroupControl.Outcome outcome;
    String text;
    try {
      List<String> members =
          change.change() == GroupControl.Change.ADD
              ? add(change.argument())
              : remove(change.argument());
      outcome = GroupControl.Outcome.DONE;
      text = String.join(",", members);
    } catch (MembershipChangeUnknownException e) {
      outcome = GroupControl.Outcome.UNKNOWN;
      text = String.valueOf(e.getMessage());
    } catch (IllegalArgumentException e) {
      outcome = GroupControl.Outcome.INVALID;
      text = String.valueOf(e.getMessage());
    } catch (RuntimeException e) {
      outcome = GroupControl.Outcome.REFUSED;
      text = String.valueOf(e.getMessage());
    }
    transport.send(
        change.sender(), new GroupControl.MembersChanged(change.id(), self, outcome, text));
  }

  // ------------------------------------------------------------------ the steps

  private RaftNode running() {
    RaftNode n = node.get();
    if (n == null) {
      throw new IllegalStateException(
          self.id() + " waits to be added to a cluster and cannot change its members");
    }
    return n;
  }

  private boolean leads(RaftNode n) {
    return self.equals(n.getTerm().getLeaderEndpoint());
  }

  /** Gives the change to the leader and returns its outcome. */
  private List<String> passOn(GroupControl.Change change, String argument) {
    RaftNode n = running();
    long deadline = System.nanoTime() + TIMEOUT.toNanos() + SETTLES.toNanos();
    RaftEndpoint leader = awaitLeaderOtherThanSelf(n, deadline);
    long id = ids.incrementAndGet();
    GroupControl answer =
        ask(
            (MemberEndpoint) leader,
            new GroupControl.ChangeMembers(
                id,
                self,
                change,
                argument,
                TimeUnit.NANOSECONDS.toMillis(Math.max(0, deadline - System.nanoTime()))),
            deadline);
    if (answer == null) {
      throw new MembershipChangeUnknownException(
          "the leader "
              + idOf(leader)
              + " did not answer within "
              + TIMEOUT.toSeconds()
              + " s; the change may still be made: see the members in `semafor cluster status`"
              + " before asking again");
    }
    GroupControl.MembersChanged outcome = (GroupControl.MembersChanged) answer;
    return switch (outcome.outcome()) {
      case DONE -> List.of(outcome.text().split(",", -1));
      case INVALID -> throw new IllegalArgumentException(outcome.text());
      case UNKNOWN -> throw new MembershipChangeUnknownException(outcome.text());
      case REFUSED -> throw new IllegalStateException(outcome.text());
    };
  }

  private RaftEndpoint awaitLeaderOtherThanSelf(RaftNode n, long deadline) {
    while (true) {
      RaftEndpoint leader = n.getTerm().getLeaderEndpoint();
      if (leader != null && !leader.equals(self)) {
        return leader;
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("no leader to make the change; try again");
      }
      pause();
    }
  }

  /**
   * Sends {@code request} to {@code to} and waits for the answer with its id; null if none came by
   * {@code deadline}. A welcome is sent again every second (a message may be lost, and a node
   * welcomed twice answers twice alike); a change is sent once, since a second copy could be made
   * twice, and a lost one ends at the deadline as unknown.
   */
  private @Nullable GroupControl ask(MemberEndpoint to, GroupControl request, long deadline) {
    boolean again = request instanceof GroupControl.Welcome;
    CompletableFuture<GroupControl> answer = new CompletableFuture<>();
    awaiting.put(
        request.id(),
        new Awaited(
            to, again ? GroupControl.Welcomed.class : GroupControl.MembersChanged.class, answer));
    try {
      transport.send(to, request);
      while (true) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          return null;
        }
        try {
          return answer.get(
              again ? Math.min(left, TimeUnit.SECONDS.toNanos(1)) : left, TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
          if (again) {
            transport.send(to, request);
          }
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new MembershipChangeUnknownException("interrupted while the change was being made");
    } catch (java.util.concurrent.CancellationException e) {
      throw new MembershipChangeUnknownException(
          self.id()
              + " is closing; the change may still be made: see the members before asking"
              + " again");
    } catch (ExecutionException e) {
      throw new IllegalStateException(String.valueOf(e.getCause()), e.getCause());
    } finally {
      awaiting.remove(request.id());
    }
  }

  /** Welcomes the joining node; it must answer that it now runs in this group. */
  private void welcome(RaftNode n, MemberEndpoint joining) {
    List<MemberEndpoint> first = new ArrayList<>();
    for (RaftEndpoint e : n.getInitialMembers().getMembers()) {
      first.add((MemberEndpoint) e);
    }
    long id = ids.incrementAndGet();
    GroupControl answer =
        ask(
            joining,
            new GroupControl.Welcome(id, self, first),
            System.nanoTime() + WELCOME_TIMEOUT.toNanos());
    if (answer == null) {
      throw new IllegalStateException(
          joining.id()
              + " did not answer at "
              + joining.host()
              + ":"
              + joining.port()
              + " within "
              + WELCOME_TIMEOUT.toSeconds()
              + " s: start it with --join first; nothing changed");
    }
    GroupControl.Welcomed welcomed = (GroupControl.Welcomed) answer;
    if (!welcomed.joined()) {
      throw new IllegalStateException(
          joining.id() + " cannot join: " + welcomed.reason() + "; nothing changed");
    }
  }

  /**
   * One change, compare-and-set on the members committed at {@code expected}: asked of MicroRaft on
   * this member while it leads, and asked again after an outcome MicroRaft could not tell (its
   * leader stepped down, a new term began) as long as nothing committed since and the change is not
   * already appended; returns once the committed members show it, whoever made it. MicroRaft's
   * failures are said as the replicator says them.
   *
   * @throws IllegalArgumentException if MicroRaft refuses the change itself (a member already
   *     there, the group's first members' endpoint, a third learner)
   * @throws IllegalStateException if other members were committed meanwhile: nothing changed
   * @throws LeadershipMoved if this member stopped leading before the change was appended: nothing
   *     changed, and the new leader can be asked
   * @throws MembershipChangeUnknownException if it was not committed by {@code deadline}
   */
  private Ordered<RaftGroupMembers> change(
      RaftNode n, RaftEndpoint endpoint, MembershipChangeMode mode, long expected, long deadline) {
    while (true) {
      RaftGroupMembers committed = n.getCommittedMembers();
      if (shows(committed, endpoint, mode)) {
        return new MadeMeanwhile(committed);
      }
      if (committed.getLogIndex() != expected) {
        throw new IllegalStateException(
            "the members changed meanwhile (now "
                + String.join(",", idsOf(committed))
                + "); nothing changed: read them and ask again");
      }
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        throw new MembershipChangeUnknownException(
            "the membership change was not committed within "
                + TIMEOUT.toSeconds()
                + " s and may still be: see the members in `semafor cluster status` before asking"
                + " again");
      }
      if (shows(n.getEffectiveMembers(), endpoint, mode)) {
        pause(); // appended, waiting for a majority: it commits, or a new leader drops it
        continue;
      }
      if (!leads(n)) {
        throw new LeadershipMoved();
      }
      try {
        return n.changeMembership(endpoint, mode, expected).get(left, TimeUnit.NANOSECONDS);
      } catch (TimeoutException e) {
        // the deadline check above says so
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new MembershipChangeUnknownException("interrupted while the change was being made");
      } catch (ExecutionException e) {
        Throwable cause = e.getCause();
        if (cause instanceof IllegalArgumentException
            && !shows(n.getEffectiveMembers(), endpoint, mode)
            && !shows(n.getCommittedMembers(), endpoint, mode)) {
          throw new IllegalArgumentException("member: " + cause.getMessage(), cause);
        }
        // not leading any more, a new term, an outcome MicroRaft cannot tell, another change in
        // flight: look at the members again
        log.debug("membership change {} of {}: {}; looking again", mode, endpoint.getId(), cause);
        pause();
      }
    }
  }

  /** This member stopped leading before a change was appended: the new leader is to be asked. */
  private static final class LeadershipMoved extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    LeadershipMoved() {
      super("leadership moved before the change was made; nothing changed");
    }
  }

  private static boolean hasMember(RaftGroupMembers members, String id) {
    for (RaftEndpoint e : members.getMembers()) {
      if (idOf(e).equals(id)) {
        return true;
      }
    }
    return false;
  }

  /** Whether this member's committed members show {@code made}, now or within {@link #SETTLES}. */
  private boolean settles(RaftNode n, java.util.function.Predicate<RaftGroupMembers> made) {
    long deadline = System.nanoTime() + SETTLES.toNanos();
    while (!made.test(n.getCommittedMembers())) {
      if (System.nanoTime() > deadline) {
        return false;
      }
      pause();
    }
    return true;
  }

  /** Whether {@code members} show the change {@code mode} of {@code endpoint}. */
  private static boolean shows(
      RaftGroupMembers members, RaftEndpoint endpoint, MembershipChangeMode mode) {
    return switch (mode) {
      case ADD_LEARNER -> members.getMembers().contains(endpoint);
      case ADD_OR_PROMOTE_TO_FOLLOWER -> members.getVotingMembers().contains(endpoint);
      case REMOVE_MEMBER -> !members.getMembers().contains(endpoint);
    };
  }

  /** A change found made: its members, committed at their own index. */
  private record MadeMeanwhile(RaftGroupMembers members) implements Ordered<RaftGroupMembers> {
    @Override
    public long getCommitIndex() {
      return members.getLogIndex();
    }

    @Override
    public RaftGroupMembers getResult() {
      return members;
    }
  }

  /**
   * Waits until the learner's log holds every entry up to {@code index}, as the leader's report
   * says; false if it does not by {@code deadline}.
   */
  private boolean caughtUp(RaftNode n, MemberEndpoint learner, long index, long deadline) {
    while (System.nanoTime() < deadline) {
      Long match = matchIndexOf(n, learner);
      if (match != null && match >= index) {
        return true;
      }
      if (!leads(n)) {
        throw new LeadershipMoved(); // the new leader goes on from the learner
      }
      pause();
    }
    return false;
  }

  private @Nullable Long matchIndexOf(RaftNode n, RaftEndpoint follower) {
    try {
      RaftNodeReport report = n.getReport().get(5, TimeUnit.SECONDS).getResult();
      if (report.getRole() != RaftRole.LEADER) {
        return null;
      }
      return report.getLog().getFollowerMatchIndices().get(follower);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new MembershipChangeUnknownException("interrupted while the change was being made");
    } catch (ExecutionException | TimeoutException e) {
      return null;
    }
  }

  /** Hands leadership to the voting follower furthest ahead and waits until it leads. */
  private void stepDown(RaftNode n, RaftGroupMembers committed) {
    RaftEndpoint next = null;
    long best = -1;
    for (RaftEndpoint e : committed.getVotingMembers()) {
      Long match = e.equals(self) ? null : matchIndexOf(n, e);
      if (match != null && match > best) {
        best = match;
        next = e;
      }
    }
    if (next == null) {
      throw new IllegalStateException("no other voting member to hand leadership to");
    }
    try {
      n.transferLeadership(next).get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while handing leadership over");
    } catch (ExecutionException | TimeoutException e) {
      throw new IllegalStateException(
          "leadership could not be handed to " + idOf(next) + ": " + e + "; nothing changed", e);
    }
    log.info("{} handed leadership to {} before its removal", self.id(), idOf(next));
  }

  private static String idOf(RaftEndpoint e) {
    return String.valueOf(e.getId());
  }

  private static List<String> idsOf(RaftGroupMembers members) {
    List<String> out = new ArrayList<>();
    for (RaftEndpoint e : members.getMembers()) {
      out.add(idOf(e));
    }
    return out;
  }

  private void pause() {
    if (closed) {
      throw new MembershipChangeUnknownException(
          self.id()
              + " is closing; the change may still be made: see the members before asking"
              + " again");
    }
    try {
      Thread.sleep(POLL_MILLIS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new MembershipChangeUnknownException("interrupted while the change was being made");
    }
  }

  /**
   * Stops answering changes passed on, and ends the changes under way on callers' threads with
   * {@link MembershipChangeUnknownException} at their next look (a step already asked of MicroRaft
   * may still be made).
   */
  @Override
  public void close() {
    closed = true;
    passedOn.shutdownNow();
    awaiting.values().forEach(a -> a.answer().cancel(false));
  }
}
