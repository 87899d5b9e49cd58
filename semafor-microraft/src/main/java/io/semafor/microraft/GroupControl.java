package io.semafor.microraft;

import java.util.List;

/**
 * What members say to each other besides Raft's own messages, to change who the members are ({@link
 * MicroRaftMembership}): the leader welcomes a node started with {@code --join} before it adds it,
 * and a member asked for a change that does not lead passes it to the leader. Each request carries
 * an id its answer repeats, and its sender, to whom the answer goes.
 */
sealed interface GroupControl {
  /** The request this message asks or answers. */
  long id();

  /** Who sent it: where an answer goes. */
  MemberEndpoint sender();

  /**
   * From the leader to a node waiting to join: the group's first members, which the node needs to
   * start its Raft member (MicroRaft then brings it up to date from the log or a snapshot).
   */
  record Welcome(long id, MemberEndpoint sender, List<MemberEndpoint> initialMembers)
      implements GroupControl {
    /** Copies the list. */
    public Welcome {
      initialMembers = List.copyOf(initialMembers);
    }
  }

  /**
   * The joining node's answer: {@code joined} if its member now runs in the group the welcome named
   * (or already did); otherwise {@code reason} says why not.
   */
  record Welcomed(long id, MemberEndpoint sender, boolean joined, String reason)
      implements GroupControl {}

  /**
   * From a member to its leader: make this change, as the operator asked of the member, if it can
   * start within {@code waitMillis} of arriving (the asker gives up after that, and a change begun
   * later would surprise the operator who was told its outcome is unknown).
   */
  record ChangeMembers(
      long id, MemberEndpoint sender, Change change, String argument, long waitMillis)
      implements GroupControl {}

  /** The leader's answer to {@link ChangeMembers}: the outcome, and the members or the reason. */
  record MembersChanged(long id, MemberEndpoint sender, Outcome outcome, String text)
      implements GroupControl {}

  /** A change of members. */
  enum Change {
    /** Add the member given as {@code id=host:clientPort:raftPort}. */
    ADD,
    /** Remove the member with the id given. */
    REMOVE
  }

  /** How a change asked of the leader ended, as {@link io.semafor.replication.Replicator} says. */
  enum Outcome {
    /** Made: the text is the members' ids after it, comma separated. */
    DONE,
    /** The argument was wrong (malformed, already a member, not a member): nothing changed. */
    INVALID,
    /** The group refused or failed the change: nothing changed. */
    REFUSED,
    /** Not committed in time: it may still be made. */
    UNKNOWN
  }
}
