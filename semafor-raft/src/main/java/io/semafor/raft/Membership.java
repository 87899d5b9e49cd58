package io.semafor.raft;

import io.semafor.replication.ClusterSpec;
import io.semafor.replication.Replicator.MembershipChangeUnknownException;
import io.semafor.replication.group.GroupMember;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.client.RaftClientConfigKeys;
import org.apache.ratis.conf.Parameters;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.protocol.SetConfigurationRequest;
import org.apache.ratis.server.RaftConfiguration;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.util.TimeDuration;
import org.jspecify.annotations.Nullable;

/**
 * The group's members as this node knows them, and changes to them through Ratis's reconfiguration:
 * one member at a time, compare-and-set, each call blocking until the change is committed or has
 * failed.
 *
 * <p>Thread-safe; changes may be asked for on any member, and several at once (one wins).
 */
final class Membership {
  /** How long a membership change may take, catching the new member up included. */
  private static final Duration TIMEOUT = Duration.ofSeconds(60);

  /** The pause between two tries of a membership change. */
  private static final long RETRY_MILLIS = 500;

  /** How long a member may take to learn a configuration the leader committed. */
  private static final Duration CONF_SETTLES = Duration.ofSeconds(3);

  private final ClusterSpec config;
  private final RaftServer server;

  /** The members this node started with: what it knows while its division cannot be read. */
  private final RaftGroup seed;

  /** Ratis's parameters (the peers' TLS), for the clients that ask for changes. */
  private final Parameters parameters;

  Membership(ClusterSpec config, RaftServer server, RaftGroup seed, Parameters parameters) {
    this.config = config;
    this.server = server;
    this.seed = seed;
    this.parameters = parameters;
  }

  /** The members now, as this node knows them (the seed peers if it knows nothing yet). */
  List<RaftPeer> current() {
    try {
      return new ArrayList<>(
          server.getDivision(RaftReplicator.GROUP_ID).getRaftConf().getCurrentPeers());
    } catch (IOException e) {
      return new ArrayList<>(seed.getPeers());
    }
  }

  /** The members' ids now, comma separated. */
  String ids() {
    return String.join(",", current().stream().map(p -> p.getId().toString()).toList());
  }

  /**
   * Where the clients of member {@code id} connect, "host:port": from the replicated configuration
   * (which carries it, see {@link RaftBootstrap#raftPeer}), else from this node's seed peers; "" if
   * neither knows the member.
   */
  String clientAddressOf(String id) {
    RaftPeer member = memberOrNull(current(), id);
    if (member != null) {
      String address = member.getDataStreamAddress();
      return address == null ? "" : address;
    }
    GroupMember p = config.memberOrNull(id);
    return p == null ? "" : p.clientAddress();
  }

  /**
   * Adds a member given as {@code id=host:clientPort:raftPort}; returns the members' ids after.
   *
   * @throws IllegalArgumentException if the text is malformed or the id is already a member
   * @throws IllegalStateException if the cluster refused the change or did not commit it in time
   */
  List<String> add(String member) {
    GroupMember peer = GroupMember.parse("member", member);
    List<RaftPeer> current = current();
    if (memberOrNull(current, peer.id()) != null) {
      throw new IllegalArgumentException("member: " + peer.id() + " is already a member");
    }
    List<RaftPeer> next = new ArrayList<>(current);
    next.add(RaftBootstrap.raftPeer(peer));
    return change(current, next);
  }

  /**
   * Removes the member {@code id}; returns the members' ids after.
   *
   * @throws IllegalArgumentException if no member has this id, or it is the last member
   * @throws IllegalStateException if the cluster refused the change or did not commit it in time
   */
  List<String> remove(String id) {
    List<RaftPeer> current = current();
    RaftPeer removed = memberOrNull(current, id);
    if (removed == null) {
      throw new IllegalArgumentException("member: " + id + " is not a member");
    }
    List<RaftPeer> next = new ArrayList<>(current);
    next.remove(removed);
    if (next.isEmpty()) {
      throw new IllegalArgumentException("member: " + id + " is the last member");
    }
    return change(current, next);
  }

  /**
   * Asks the leader to hand leadership to {@code id}; blocks until it has or {@code timeout}
   * passes.
   *
   * @throws IllegalArgumentException if no member has this id
   * @throws IllegalStateException if the transfer did not complete
   */
  void transferLeadership(String id, Duration timeout) {
    List<RaftPeer> current = current();
    if (memberOrNull(current, id) == null) {
      throw new IllegalArgumentException("member: " + id + " is not a member");
    }
    try (RaftClient admin = adminClient(current, System.nanoTime() + timeout.toNanos())) {
      RaftClientReply reply =
          admin.admin().transferLeadership(RaftPeerId.valueOf(id), timeout.toMillis());
      if (!reply.isSuccess()) {
        throw new IllegalStateException("leadership was not transferred: " + reply.getException());
      }
    } catch (IOException e) {
      throw new IllegalStateException("leadership was not transferred: " + e, e);
    }
  }

  private static @Nullable RaftPeer memberOrNull(List<RaftPeer> members, String id) {
    for (RaftPeer p : members) {
      if (p.getId().toString().equals(id)) {
        return p;
      }
    }
    return null;
  }

  /**
   * A client for group-wide requests that finds the leader among {@code members} itself, and tries
   * again (another change in progress, a leader being elected) until {@code deadlineNanos} ({@link
   * RetryUntil}): 20 tries (10 s) ran out while a member the change needed was restarting
   * (MembershipChangeOutcomeTest on a loaded CI machine).
   */
  private RaftClient adminClient(List<RaftPeer> members, long deadlineNanos) {
    RaftProperties properties = new RaftProperties();
    RaftClientConfigKeys.Rpc.setRequestTimeout(
        properties, TimeDuration.valueOf(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS));
    TimeDuration pause = TimeDuration.valueOf(RETRY_MILLIS, TimeUnit.MILLISECONDS);
    return RaftClient.newBuilder()
        .setProperties(properties)
        .setParameters(parameters)
        .setRaftGroup(RaftGroup.valueOf(RaftReplicator.GROUP_ID, members))
        .setRetryPolicy(new RetryUntil(System::nanoTime, deadlineNanos, pause))
        .build();
  }

  /**
   * Makes the change and waits for it to be committed, at most {@link #TIMEOUT}.
   *
   * @throws IllegalStateException if the cluster refused the change
   * @throws MembershipChangeUnknownException if it was not committed within {@link #TIMEOUT}: it
   *     may still be (Ratis cannot withdraw a change its leader has begun)
   */
  private List<String> change(List<RaftPeer> current, List<RaftPeer> next) {
    long deadline = System.nanoTime() + TIMEOUT.toNanos();
    RaftClient admin = adminClient(current, deadline);
    SetConfigurationRequest.Arguments arguments =
        SetConfigurationRequest.Arguments.newBuilder()
            .setServersInCurrentConf(current)
            .setServersInNewConf(next)
            // compare-and-set: someone else's change made meanwhile fails this one, is not undone
            .setMode(SetConfigurationRequest.Mode.COMPARE_AND_SET)
            .build();
    // Ratis's admin call blocks, and one try may wait the whole request timeout: it runs on a
    // thread of its own, so that the caller's wait ends at the deadline whatever Ratis does
    CompletableFuture<RaftClientReply> call = new CompletableFuture<>();
    Thread caller =
        new Thread(
            () -> {
              try {
                call.complete(admin.admin().setConfiguration(arguments));
              } catch (IOException | RuntimeException e) {
                call.completeExceptionally(e);
              }
            },
            "semafor-membership-change");
    caller.setDaemon(true);
    caller.start();
    try {
      RaftClientReply reply = call.get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
      if (!reply.isSuccess() && !madeMeanwhile(next)) {
        throw new IllegalStateException("the cluster refused the change: " + reply.getException());
      }
    } catch (ExecutionException e) {
      if (!madeMeanwhile(next)) {
        throw new IllegalStateException(
            "the membership change did not complete: " + e.getCause(), e.getCause());
      }
    } catch (TimeoutException e) {
      if (!madeMeanwhile(next)) {
        throw new MembershipChangeUnknownException(
            "the membership change was not committed within "
                + TIMEOUT.toSeconds()
                + " s and may still be: see the members in `semafor cluster status` before"
                + " asking again");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new MembershipChangeUnknownException("interrupted while the change was being made");
    } finally {
      closeQuietly(admin); // fails a try still waiting, which then is not tried again
    }
    return next.stream().map(p -> p.getId().toString()).toList();
  }

  private static void closeQuietly(RaftClient client) {
    try {
      client.close();
    } catch (IOException | RuntimeException e) {
      // nothing was waiting on it but the call that has already ended or been given up
    }
  }

  /**
   * Whether the members are now {@code next}, as this node sees them within a moment: then the
   * change was made, although the call that asked for it failed. Ratis's client sends a request
   * again after an error; when the first one went through, the compare-and-set of the second finds
   * the configuration already changed and fails, and the change was reported as failed while it had
   * been made (found by the fault harness, REPLACE_MEMBER; the same happens to two callers asking
   * for the same change). The same set of members is the same outcome, whoever made it.
   */
  private boolean madeMeanwhile(List<RaftPeer> next) {
    Set<String> wanted = ids(next);
    long deadline = System.nanoTime() + CONF_SETTLES.toNanos();
    while (true) {
      if (wanted.equals(committedMembers())) {
        return true;
      }
      if (System.nanoTime() > deadline) {
        return false;
      }
      try {
        Thread.sleep(50);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return false;
      }
    }
  }

  /**
   * The members' ids if this node knows its configuration to be committed and stable (not a joint
   * configuration in the middle of a change); empty otherwise.
   */
  private Set<String> committedMembers() {
    try {
      RaftServer.Division division = server.getDivision(RaftReplicator.GROUP_ID);
      RaftConfiguration conf = division.getRaftConf();
      boolean committed = conf.getLogEntryIndex() <= division.getRaftLog().getLastCommittedIndex();
      return committed && conf.getPreviousPeers().isEmpty()
          ? ids(new ArrayList<>(conf.getCurrentPeers()))
          : Set.of();
    } catch (IOException e) {
      return Set.of();
    }
  }

  private static Set<String> ids(List<RaftPeer> peers) {
    Set<String> ids = new HashSet<>();
    for (RaftPeer p : peers) {
      ids.add(p.getId().toString());
    }
    return ids;
  }
}
