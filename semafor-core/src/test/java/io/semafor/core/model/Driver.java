package io.semafor.core.model;

import io.semafor.Policy;
import io.semafor.SemaphoreOptions;
import io.semafor.core.Command;
import io.semafor.core.Effect;
import io.semafor.core.Name;
import io.semafor.core.Operation;
import io.semafor.core.Outcome;
import io.semafor.core.Reply;
import io.semafor.core.Result;
import io.semafor.core.SemopOp;
import io.semafor.core.TimerKey;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Turns generated actions into commands as real clients would issue them: request ids in order,
 * acknowledgements of what they received, retries under the same id, picks among the request and
 * permit ids they know. It learns from each outcome through {@link #observe}.
 */
final class Driver {
  static final long MS = 1_000_000L;
  static final long SECOND = 1_000 * MS;

  /** The name pool: three live names, one never created, one that is not UTF-8. */
  static final List<Name> NAMES =
      List.of(
          Name.of("a"),
          Name.of("b"),
          Name.of("c"),
          Name.of("never"),
          Name.ofBytes(new byte[] {(byte) 0xC3, 0x28}));

  /** Whether owned semop adds are generated (SysV undo can then take back, clamped at 0). */
  private final boolean ownedAdds;

  private final ClientState[] clients = new ClientState[Scripts.CLIENTS];
  private final List<Long> permits = new ArrayList<>();
  private final Map<TimerKey, Long> timers = new LinkedHashMap<>();
  private long revision;
  private long now;
  private int connects;

  Driver(boolean ownedAdds) {
    this.ownedAdds = ownedAdds;
  }

  static final class ClientState {
    final long sessionId;
    final long ttl;
    boolean ended;
    long lastSeen;
    long lastRequestId;
    final Map<Long, Operation> sent = new LinkedHashMap<>();
    final List<Long> waiting = new ArrayList<>();
    final List<Long> unacked = new ArrayList<>();

    ClientState(long sessionId, long ttl) {
      this.sessionId = sessionId;
      this.ttl = ttl;
    }
  }

  long nextRevision() {
    return ++revision;
  }

  long now() {
    return now;
  }

  /** The commands that set the stage: two sessions and three semaphores of different kinds. */
  List<Command> setup() {
    return List.of(
        new Command.OpenSession(10 * SECOND),
        new Command.OpenSession(10 * SECOND),
        new Command.Request(1, 1, new Operation.Create(NAMES.get(0), 2, SemaphoreOptions.DEFAULT)),
        new Command.Request(
            1, 2, new Operation.Create(NAMES.get(1), 3, SemaphoreOptions.withCapacity(3))),
        new Command.Request(
            1,
            3,
            new Operation.Create(
                NAMES.get(2),
                1,
                SemaphoreOptions.withCapacity(5).policy(Policy.BARGING).maxPerSession(2))));
  }

  /**
   * Runs the setup, then each action of {@code script} that applies at its turn: {@code step}
   * applies each command and returns its outcome, which the driver observes.
   */
  void drive(List<Action> script, java.util.function.Function<Command, Outcome> step) {
    for (Command command : setup()) {
      observe(command, step.apply(command));
    }
    for (Action action : script) {
      Command command = next(action);
      if (command != null) {
        observe(command, step.apply(command));
      }
    }
  }

  /** The command for an action, or null if it does not apply now. */
  @Nullable Command next(Action action) {
    if (action instanceof Action.Connect c) {
      return new Command.OpenSession(c.ttlSeconds() * SECOND);
    }
    if (action instanceof Action.Tick t) {
      now += t.millis() * MS;
      return null;
    }
    if (action instanceof Action.Fire f) {
      return fire(f);
    }
    int index =
        action instanceof Action.Send s
            ? s.client()
            : action instanceof Action.Retry r
                ? r.client()
                : action instanceof Action.KeepAlive k
                    ? k.client()
                    : action instanceof Action.ExpireSession x
                        ? x.client()
                        : action instanceof Action.Close x
                            ? x.client()
                            : ((Action.FireStale) action).client();
    ClientState client = clients[index];
    if (client == null) {
      return null;
    }
    if (action instanceof Action.KeepAlive) {
      return new Command.Acknowledge(client.sessionId, takeAcks(client, 0));
    }
    if (action instanceof Action.ExpireSession x) {
      long due = client.lastSeen + client.ttl - (x.early() ? 1 : 0);
      now = Math.max(now, due);
      return new Command.ExpireSession(client.sessionId);
    }
    if (action instanceof Action.Close) {
      long id = ++client.lastRequestId;
      client.sent.put(id, new Operation.CloseSession());
      return new Command.Request(
          client.sessionId, id, takeAcks(client, 1), new Operation.CloseSession());
    }
    if (action instanceof Action.FireStale f) {
      return f.pick() % 2 == 0
          ? new Command.ExpireWaiter(client.sessionId, f.pick() + 1)
          : new Command.ExpireLease(f.pick());
    }
    if (action instanceof Action.Retry r) {
      if (client.sent.isEmpty()) {
        return null;
      }
      List<Long> ids = new ArrayList<>(client.sent.keySet());
      long id = ids.get(Math.max(0, ids.size() - 1 - r.pick() % 8));
      Operation op = client.sent.get(id);
      return op == null ? null : new Command.Request(client.sessionId, id, List.of(), op);
    }
    Action.Send s = (Action.Send) action;
    Operation op = operation(client, s);
    long id = ++client.lastRequestId;
    client.sent.put(id, op);
    return new Command.Request(client.sessionId, id, takeAcks(client, s.acks()), op);
  }

  /** Fires an armed timer at, just before, or regardless of its deadline. */
  private @Nullable Command fire(Action.Fire f) {
    if (timers.isEmpty()) {
      return null;
    }
    List<Map.Entry<TimerKey, Long>> armed = new ArrayList<>(timers.entrySet());
    Map.Entry<TimerKey, Long> timer = armed.get(f.pick() % armed.size());
    long deadline = timer.getValue();
    if (f.when() == 0 && deadline - 1 > now) {
      now = deadline - 1;
    } else if (f.when() == 1 && deadline > now) {
      now = deadline;
    }
    return timer.getKey() instanceof TimerKey.WaiterTimeout w
        ? new Command.ExpireWaiter(w.sessionId(), w.requestId())
        : new Command.ExpireLease(((TimerKey.LeaseEnd) timer.getKey()).permitId());
  }

  private static List<Long> takeAcks(ClientState client, int mode) {
    List<Long> acks = new ArrayList<>();
    List<Long> kept = new ArrayList<>();
    for (int i = 0; i < client.unacked.size(); i++) {
      if (mode == 0 || (mode == 2 && i % 2 == 0)) {
        acks.add(client.unacked.get(i));
      } else {
        kept.add(client.unacked.get(i));
      }
    }
    client.unacked.clear();
    client.unacked.addAll(kept);
    return acks;
  }

  private Operation operation(ClientState client, Action.Send s) {
    Name name = NAMES.get(s.name());
    Name other = NAMES.get(s.otherName());
    long amount = s.amount();
    long timeout = timeout(s.timeout());
    boolean owned = (s.flags() & 1) != 0;
    return switch (s.kind()) {
      case 0 ->
          new Operation.Create(
              name,
              amount == Long.MAX_VALUE ? amount : Math.abs(s.otherAmount()),
              new SemaphoreOptions(
                  new long[] {0, 3, 5, 0}[s.flags() & 3],
                  (s.flags() & 4) != 0 ? Policy.BARGING : Policy.FIFO,
                  (s.flags() & 8) != 0 ? 1 : 0));
      case 1 -> s.flags() < 4 ? new Operation.Delete(name) : new Operation.Increment(name, amount);
      case 2 -> new Operation.SetValue(name, amount > 4 ? amount : s.otherAmount() + 2);
      case 3 -> new Operation.Increment(name, amount);
      case 4 -> new Operation.Decrement(name, amount, timeout, owned);
      case 5 -> new Operation.Acquire(name, amount, timeout, owned);
      case 6 -> new Operation.AcquireLease(name, amount, (s.otherAmount() + 4) * SECOND, timeout);
      case 7 -> new Operation.AwaitZero(name, timeout);
      case 8 -> new Operation.Semop(semopOps(s, name, other), timeout);
      case 9 -> new Operation.Release(name, amount);
      case 10 -> new Operation.ReleaseSlot(name, amount);
      case 11 -> new Operation.RenewLease(permit(s.pick()), (s.otherAmount() + 4) * SECOND);
      case 12 -> new Operation.ReleaseLease(permit(s.pick()));
      case 13 -> new Operation.AddToWaitMany(s.flags() & 1, name, amount);
      case 14 -> new Operation.RemoveFromWaitMany(s.flags() & 1, name);
      case 15 -> new Operation.WaitMany(s.flags() & 1, timeout);
      case 16 ->
          new Operation.Cancel(
              client.waiting.isEmpty()
                  ? s.pick() + 1
                  : client.waiting.get(s.pick() % client.waiting.size()));
      case 17 -> s.flags() < 2 ? new Operation.CloseSession() : new Operation.Increment(name, 1);
      default -> throw new IllegalArgumentException("kind " + s.kind());
    };
  }

  private List<SemopOp> semopOps(Action.Send s, Name name, Name other) {
    boolean noWait = (s.flags() & 2) != 0;
    boolean owned = (s.flags() & 1) != 0;
    List<SemopOp> ops = new ArrayList<>();
    long first = -Math.min(3, Math.abs(s.amount()));
    ops.add(new SemopOp(name, first, noWait, owned));
    if ((s.pick() & 1) != 0) {
      long delta = s.otherAmount();
      boolean ownedHere = owned && (delta <= 0 || ownedAdds);
      ops.add(new SemopOp(other, delta, false, ownedHere));
    }
    if ((s.pick() & 2) != 0) {
      ops.add(new SemopOp(name, 0, (s.pick() & 4) != 0, false));
    }
    if ((s.pick() & 4) != 0 && ops.size() == 1) {
      ops.add(0, new SemopOp(other, Math.abs(s.otherAmount()), false, owned && ownedAdds));
    }
    return ops;
  }

  private long permit(int pick) {
    return permits.isEmpty() ? pick + 1 : permits.get(pick % permits.size());
  }

  private static long timeout(int kind) {
    return switch (kind) {
      case 0 -> 0;
      case 1 -> Operation.FOREVER;
      case 2 -> SECOND;
      case 3 -> 3 * SECOND;
      default -> -5;
    };
  }

  /** Learns session ids, replies, waiting requests and permit ids from what a command produced. */
  void observe(Command command, Outcome outcome) {
    Reply reply = outcome.reply();
    if (command instanceof Command.OpenSession
        && reply != null
        && reply.result() instanceof Result.SessionOpened opened) {
      int slot = connects++ % clients.length;
      for (int i = 0; i < clients.length; i++) {
        if (clients[i] == null || clients[i].ended) {
          slot = i;
          break;
        }
      }
      clients[slot] = new ClientState(opened.sessionId(), opened.ttl());
      clients[slot].lastSeen = now;
    }
    if (command instanceof Command.Request request) {
      ClientState client = byId(request.sessionId());
      if (client != null) {
        client.lastSeen = now;
        client.lastRequestId = Math.max(client.lastRequestId, request.requestId());
        client.sent.putIfAbsent(request.requestId(), request.operation());
        if (reply == null) {
          if (!client.waiting.contains(request.requestId())) {
            client.waiting.add(request.requestId());
          }
        } else {
          received(client, reply);
        }
      }
    }
    if (command instanceof Command.Acknowledge ack) {
      ClientState client = byId(ack.sessionId());
      if (client != null) {
        client.lastSeen = now;
      }
    }
    for (Effect effect : outcome.effects()) {
      if (effect instanceof Effect.ArmTimer arm) {
        timers.put(arm.timer(), arm.deadline());
      } else if (effect instanceof Effect.CancelTimer cancel) {
        timers.remove(cancel.timer());
      }
      if (effect instanceof Effect.SessionEnded ended) {
        ClientState client = byId(ended.sessionId());
        if (client != null) {
          client.ended = true;
        }
      }
      if (effect instanceof Effect.Complete complete) {
        ClientState client = byId(complete.reply().sessionId());
        if (client != null) {
          received(client, complete.reply());
        }
      }
    }
  }

  private void received(ClientState client, Reply reply) {
    client.waiting.remove(reply.requestId());
    if (reply.requestId() > 0 && !client.unacked.contains(reply.requestId())) {
      client.unacked.add(reply.requestId());
    }
    if (reply.result() instanceof Result.LeaseGranted lease
        && lease.granted()
        && !permits.contains(lease.permitId())) {
      permits.add(lease.permitId());
    }
  }

  private @Nullable ClientState byId(long sessionId) {
    for (ClientState client : clients) {
      if (client != null && client.sessionId == sessionId) {
        return client;
      }
    }
    return null;
  }
}
