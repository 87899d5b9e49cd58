package io.semafor.it.faults;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/**
 * Checks that a history is linearizable with respect to a sequential counting semaphore: that every
 * op that took effect can be given an instant between its invocation and its completion at which it
 * took effect, all at once, on a single value, with every step legal in the model.
 *
 * <p>The model's state is the free value {@code v}. {@code increment(a)} and {@code release(a)} add
 * {@code a} and are always legal; {@code acquire(a)} is legal only when {@code v >= a} and takes
 * {@code a} (an acquire that must wait is linearized when it is granted); a read is legal only if
 * it saw {@code v}. The model has no ceiling and no grant order: any history correct for Semafor is
 * correct for it, so it never raises a false alarm over those, and FIFO and tokens are left to
 * {@link io.semafor.it.HistoryChecker}.
 *
 * <p>{@link Op.Outcome#FAILED} ops are dropped, as are reads that did not complete (they saw
 * nothing). {@link Op.Outcome#UNKNOWN} ops may take effect at any instant after their invocation,
 * or never: their completion is taken as +infinity and the search may leave them out.
 *
 * <p>The search is Wing and Gong's, with Lowe's memoisation of (ops linearized, value) as in
 * Knossos and Porcupine: at each step only ops invoked before the earliest completion among the ops
 * left are candidates, and a configuration seen before is not explored again. It is exponential in
 * the worst case, so it gives up after a bounded number of steps and says {@link Verdict#UNDECIDED}
 * rather than running for ever. Histories of different semaphores are checked apart ({@link
 * #checkAll}): linearizability is compositional, so that loses nothing.
 *
 * <p>UNKNOWN ops are what make a search slow: one that never happened stays a candidate to the end,
 * and every dead end tries it, and every combination of such ops, as an explanation (whether some
 * of them add up to what a read saw is subset-sum). So a history with UNKNOWN ops is searched twice
 * if need be: first with each UNKNOWN op required to take effect, if at all, within the slowest
 * answer's time after its client gave up (which is when it almost always does, and then the search
 * is fast); a linearization found so is one, and the verdict. Only if none is found is the history
 * searched again with UNKNOWN ops free to take effect at any time, which alone can rule them all
 * out. If that second search gives up, the verdict is UNDECIDED and its explanation says what the
 * first one found.
 */
public final class LinearizabilityChecker {
  /** The default bound on the search: model steps tried before the checker gives up. */
  public static final long DEFAULT_MAX_STEPS = 2_000_000;

  /** What a check concluded. */
  public enum Verdict {
    /** Some order of the ops, consistent with real time, is legal in the model. */
    LINEARIZABLE,
    /** No order is: the server did something no counting semaphore could have done. */
    NOT_LINEARIZABLE,
    /** The search gave up before finding an order or ruling every one out. */
    UNDECIDED
  }

  /**
   * A check's conclusion.
   *
   * @param verdict what it concluded
   * @param explanation for {@link Verdict#NOT_LINEARIZABLE}, the furthest any order got and the ops
   *     none of which could go next there; for {@link Verdict#UNDECIDED}, the bound hit; empty for
   *     {@link Verdict#LINEARIZABLE}
   * @param steps model steps tried (the measure the bound limits), over both searches if there were
   *     two
   */
  public record Result(Verdict verdict, String explanation, long steps) {
    /** Requires a verdict and an explanation (possibly empty). */
    public Result {
      Objects.requireNonNull(verdict, "verdict");
      Objects.requireNonNull(explanation, "explanation");
    }

    /** Whether the verdict is {@link Verdict#LINEARIZABLE}. */
    public boolean linearizable() {
      return verdict == Verdict.LINEARIZABLE;
    }
  }

  private final long maxSteps;

  /** A checker that gives up after {@link #DEFAULT_MAX_STEPS} steps per search. */
  public LinearizabilityChecker() {
    this(DEFAULT_MAX_STEPS);
  }

  /**
   * A checker that gives up after {@code maxSteps} model steps per search (a semaphore with UNKNOWN
   * ops may take two): the time and memory a check takes grow with them (a step takes well under a
   * microsecond; each new configuration remembered costs a few dozen bytes plus one bit per op in
   * the window being searched and per UNKNOWN op).
   *
   * @throws IllegalArgumentException if {@code maxSteps} is not positive
   */
  public LinearizabilityChecker(long maxSteps) {
    if (maxSteps <= 0) {
      throw new IllegalArgumentException("maxSteps must be positive: " + maxSteps);
    }
    this.maxSteps = maxSteps;
  }

  /**
   * Checks each semaphore's ops on its own, from its value in {@code initialValues}, and returns
   * the results by semaphore name in name order.
   *
   * @throws IllegalArgumentException if an op names a semaphore with no initial value: guessing one
   *     would make every read of it look wrong
   */
  public Map<String, Result> checkAll(List<Op> ops, Map<String, Long> initialValues) {
    Map<String, List<Op>> bySemaphore = new TreeMap<>();
    for (Op op : ops) {
      bySemaphore.computeIfAbsent(op.semaphore(), s -> new ArrayList<>()).add(op);
    }
    Map<String, Result> results = new TreeMap<>();
    for (Map.Entry<String, List<Op>> e : bySemaphore.entrySet()) {
      Long initial = initialValues.get(e.getKey());
      if (initial == null) {
        throw new IllegalArgumentException("no initial value for semaphore " + e.getKey());
      }
      results.put(e.getKey(), check(e.getValue(), initial));
    }
    return results;
  }

  /**
   * Checks the ops of one semaphore, starting from {@code initialValue}.
   *
   * @throws IllegalArgumentException if the ops name more than one semaphore ({@link #checkAll}
   *     splits them)
   */
  public Result check(List<Op> ops, long initialValue) {
    List<Op> kept = new ArrayList<>();
    for (Op op : ops) {
      if (!op.semaphore().equals(ops.get(0).semaphore())) {
        throw new IllegalArgumentException(
            "ops of " + ops.get(0).semaphore() + " and " + op.semaphore() + ": use checkAll");
      }
      boolean failed = op.outcome() == Op.Outcome.FAILED;
      boolean unanswered = op.kind().equals(Op.READ) && op.outcome() != Op.Outcome.OK;
      if (!failed && !unanswered) {
        kept.add(op);
      }
    }
    // Numbered in invocation order, so the ops linearized form a prefix plus a short window and
    // the memo's keys stay small.
    kept.sort(Comparator.comparingLong(Op::invoked));
    long slowest = 0;
    boolean anyUnknown = false;
    for (Op op : kept) {
      if (op.outcome() == Op.Outcome.OK) {
        slowest = Math.max(slowest, op.completed() - op.invoked());
      } else {
        anyUnknown = true;
      }
    }
    if (!anyUnknown) {
      return new Search(kept, initialValue, maxSteps, Long.MAX_VALUE).run();
    }
    Result soon = new Search(kept, initialValue, maxSteps, slowest).run();
    if (soon.linearizable()) {
      return soon;
    }
    Result any = new Search(kept, initialValue, maxSteps, Long.MAX_VALUE).run();
    String explanation = any.explanation();
    if (any.verdict() == Verdict.UNDECIDED) {
      explanation +=
          "; if every UNKNOWN op took effect within "
              + slowest
              + " ns (the slowest answer) of its client giving up: "
              + soon.verdict()
              + (soon.explanation().isEmpty() ? "" : ": " + soon.explanation());
    }
    return new Result(any.verdict(), explanation, soon.steps() + any.steps());
  }

  /**
   * One WGL search over one semaphore's ops. Entry 2i is op i's call, 2i+1 its return. OK ops'
   * calls and returns are in one list, in time order; UNKNOWN ops' calls in another, in invocation
   * order (they have no return: nothing forces them in). The candidates to go next are the OK calls
   * before the first return and the UNKNOWN calls invoked no later than it. OK ones are tried
   * first, so an UNKNOWN op is put in only where the OK ops cannot go on without it. An UNKNOWN op
   * with a deadline may go next only if no op already linearized was invoked after the deadline: it
   * would have to take effect after that invocation.
   */
  private static final class Search {
    private static final int NONE = -1;
    private static final int HEAD_OK = -2;
    private static final int HEAD_UNKNOWN = -3;

    private final List<Op> ops;
    private final long initialValue;
    private final long maxSteps;
    private final boolean[] unknown;
    // The latest instant each UNKNOWN op may take effect at.
    private final long[] deadline;
    // The two doubly linked lists of entries not yet lifted; their heads sit outside the arrays.
    private final int[] next;
    private final int[] prev;
    private int firstOk = NONE;
    private int firstUnknown = NONE;

    private final Memo memo;

    // The furthest the search got, for the explanation: most ops linearized.
    private int bestDepth = -1;
    private int bestStuckOp = NONE;
    private long bestValue;
    private int bestLastOp = NONE;
    private List<Integer> bestCandidates = List.of();

    Search(List<Op> ops, long initialValue, long maxSteps, long unknownSlack) {
      this.ops = ops;
      this.initialValue = initialValue;
      this.maxSteps = maxSteps;
      int n = ops.size();
      unknown = new boolean[n];
      deadline = new long[n];
      for (int i = 0; i < n; i++) {
        long completed = ops.get(i).completed();
        deadline[i] =
            completed > Long.MAX_VALUE - unknownSlack ? Long.MAX_VALUE : completed + unknownSlack;
      }
      List<Integer> okEntries = new ArrayList<>();
      List<Integer> unknownCalls = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        unknown[i] = ops.get(i).outcome() == Op.Outcome.UNKNOWN;
        if (unknown[i]) {
          unknownCalls.add(2 * i);
        } else {
          okEntries.add(2 * i);
          okEntries.add(2 * i + 1);
        }
      }
      // Calls before returns at the same instant: an op that completed at t did not certainly
      // precede one invoked at t, so they stay concurrent and neither is forced first.
      okEntries.sort(
          Comparator.<Integer>comparingLong(this::time)
              .thenComparingInt(e -> e & 1)
              .thenComparingInt(e -> e));
      next = new int[2 * n];
      prev = new int[2 * n];
      build(HEAD_OK, okEntries);
      build(HEAD_UNKNOWN, unknownCalls); // ops are in invocation order already
      memo = new Memo(unknown);
    }

    private void build(int head, List<Integer> entries) {
      int before = head;
      for (int e : entries) {
        link(before, e);
        prev[e] = before;
        before = e;
      }
      link(before, NONE);
    }

    private long time(int entry) {
      return isCall(entry) ? ops.get(entry >> 1).invoked() : ops.get(entry >> 1).completed();
    }

    private static boolean isCall(int entry) {
      return (entry & 1) == 0;
    }

    private void link(int before, int entry) {
      if (before == HEAD_OK) {
        firstOk = entry;
      } else if (before == HEAD_UNKNOWN) {
        firstUnknown = entry;
      } else {
        next[before] = entry;
      }
    }

    private void unlink(int entry) {
      link(prev[entry], next[entry]);
      if (next[entry] != NONE) {
        prev[next[entry]] = prev[entry];
      }
    }

    private void relink(int entry) {
      link(prev[entry], entry);
      if (next[entry] != NONE) {
        prev[next[entry]] = entry;
      }
    }

    /** Takes op i out of the lists: it has been given its instant. */
    private void lift(int op) {
      unlink(2 * op);
      if (!unknown[op]) {
        unlink(2 * op + 1);
      }
    }

    /** Puts op i back, undoing {@link #lift} (dancing links: in the reverse order). */
    private void unlift(int op) {
      if (!unknown[op]) {
        relink(2 * op + 1);
      }
      relink(2 * op);
    }

    /** The first return left among the OK ops: the op that must be linearized soonest. */
    private int firstReturn() {
      int e = firstOk;
      while (e != NONE && isCall(e)) {
        e = next[e];
      }
      return e;
    }

    Result run() {
      long value = initialValue;
      int[] stackOp = new int[ops.size()];
      long[] stackValue = new long[ops.size()];
      long[] stackLatest = new long[ops.size()];
      // The latest invocation among the ops linearized: nothing can take effect before it.
      long latest = Long.MIN_VALUE;
      int depth = 0;
      long steps = 0;
      // Where the walk over the candidates is: an OK call, or (once they are all tried) an
      // UNKNOWN call invoked no later than bound, the first return.
      int entry = firstOk;
      boolean unknownPass = false;
      int bound = NONE;
      while (true) {
        if (!unknownPass && entry != NONE && !isCall(entry)) {
          bound = entry;
          unknownPass = true;
          entry = firstUnknown;
        }
        if (!unknownPass && entry == NONE) {
          // No OK op left: the UNKNOWN ones left may never have happened.
          return new Result(Verdict.LINEARIZABLE, "", steps);
        }
        if (unknownPass && (entry == NONE || time(entry) > time(bound))) {
          // The op of bound must take effect before its return, and nothing can go next.
          if (depth > bestDepth) {
            remember(depth, bound >> 1, value, depth == 0 ? NONE : stackOp[depth - 1], bound);
          }
          if (depth == 0) {
            return new Result(Verdict.NOT_LINEARIZABLE, explanation(), steps);
          }
          int undone = stackOp[--depth];
          value = stackValue[depth];
          latest = stackLatest[depth];
          memo.clear(undone);
          unlift(undone);
          entry = next[2 * undone];
          unknownPass = unknown[undone];
          bound = unknownPass ? firstReturn() : NONE;
          continue;
        }
        int op = entry >> 1;
        if (unknownPass && latest > deadline[op]) {
          entry = next[entry];
          continue;
        }
        if (++steps > maxSteps) {
          return new Result(
              Verdict.UNDECIDED,
              "gave up after "
                  + maxSteps
                  + " steps with "
                  + memo.configurations()
                  + " configurations seen, "
                  + ops.size()
                  + " ops",
              maxSteps);
        }
        long after = step(value, ops.get(op));
        if (after != ILLEGAL) {
          memo.set(op);
          if (memo.addIfNew(after)) {
            stackOp[depth] = op;
            stackLatest[depth] = latest;
            stackValue[depth++] = value;
            latest = Math.max(latest, ops.get(op).invoked());
            value = after;
            lift(op);
            entry = firstOk;
            unknownPass = false;
            continue;
          }
          memo.clear(op);
        }
        entry = next[entry];
      }
    }

    private static final long ILLEGAL = Long.MIN_VALUE;

    /** The value after {@code op} at {@code value}, or {@link #ILLEGAL} if the model forbids it. */
    private static long step(long value, Op op) {
      return switch (op.kind()) {
        case Op.INCREMENT, Op.RELEASE -> plus(value, op.amount());
        case Op.ACQUIRE -> value >= op.amount() ? value - op.amount() : ILLEGAL;
        case Op.READ -> op.value() == value ? value : ILLEGAL;
        default -> throw new IllegalStateException("unknown kind " + op.kind());
      };
    }

    /** {@code value + amount}, or {@link #ILLEGAL} past 2^63-1, where the server says OVERFLOW. */
    private static long plus(long value, long amount) {
      long sum = value + amount;
      return ((value ^ sum) & (amount ^ sum)) < 0 ? ILLEGAL : sum;
    }

    private void remember(int depth, int stuckOp, long value, int lastOp, int stuckReturn) {
      bestDepth = depth;
      bestStuckOp = stuckOp;
      bestValue = value;
      bestLastOp = lastOp;
      List<Integer> candidates = new ArrayList<>();
      for (int e = firstOk; e != stuckReturn && e != NONE; e = next[e]) {
        candidates.add(e >> 1);
      }
      for (int e = firstUnknown; e != NONE && time(e) <= time(stuckReturn); e = next[e]) {
        candidates.add(e >> 1);
      }
      bestCandidates = candidates;
    }

    private String explanation() {
      StringBuilder b = new StringBuilder();
      b.append("no order of the ").append(ops.size()).append(" ops fits the model; at best ");
      b.append(bestDepth).append(" linearize");
      if (bestLastOp != NONE) {
        b.append(" (the last ").append(ops.get(bestLastOp).describe()).append(')');
      }
      b.append(", leaving value ").append(bestValue).append(", and then ");
      b.append(ops.get(bestStuckOp).describe()).append(" must take effect before it completes,");
      b.append(" but no op that could go next leads to an order (each is illegal at that value or");
      b.append(" a dead end): ");
      int shown = 0;
      for (int c : bestCandidates) {
        if (shown++ == 5) {
          b.append(", and ").append(bestCandidates.size() - 5).append(" more");
          break;
        }
        b.append(shown == 1 ? "" : ", ").append(ops.get(c).describe());
      }
      return b.toString();
    }
  }

  /**
   * The configurations seen, so none is explored twice: Lowe's memoisation of (ops linearized,
   * value), with one refinement for UNKNOWN ops. A configuration that has put in a superset of the
   * UNKNOWN ops another has, with the same OK ops and the same value, can do nothing the other
   * cannot (UNKNOWN ops are optional and have no deadline), so it is not explored either. Without
   * that, every combination of UNKNOWN ops that cancel out (an acquire and a release of the same
   * amount) would be a configuration of its own, and a few dozen of them would make any long
   * history undecidable.
   */
  private static final class Memo {
    private final int[] bit;
    private final boolean[] unknown;
    private final Bits ok;
    private final Bits unknownOnes;
    private final Map<Key, List<long[]>> seen = new HashMap<>();
    private long configurations;

    Memo(boolean[] unknown) {
      this.unknown = unknown;
      bit = new int[unknown.length];
      int oks = 0;
      int unknowns = 0;
      for (int i = 0; i < unknown.length; i++) {
        bit[i] = unknown[i] ? unknowns++ : oks++;
      }
      ok = new Bits(oks);
      unknownOnes = new Bits(unknowns);
    }

    long configurations() {
      return configurations;
    }

    void set(int op) {
      (unknown[op] ? unknownOnes : ok).set(bit[op]);
    }

    void clear(int op) {
      (unknown[op] ? unknownOnes : ok).clear(bit[op]);
    }

    /** Records the configuration now set at {@code value}: false if it or a better one was seen. */
    boolean addIfNew(long value) {
      Key key = new Key(value, ok.firstNotFull(), ok.window());
      long[] applied = unknownOnes.upToLastSet();
      List<long[]> sets = seen.computeIfAbsent(key, k -> new ArrayList<>(1));
      for (long[] s : sets) {
        if (subset(s, applied)) {
          return false;
        }
      }
      sets.removeIf(s -> subset(applied, s));
      sets.add(applied);
      configurations++;
      return true;
    }

    private static boolean subset(long[] small, long[] large) {
      for (int w = 0; w < small.length; w++) {
        long other = w < large.length ? large[w] : 0;
        if ((small[w] & ~other) != 0) {
          return false;
        }
      }
      return true;
    }
  }

  /** A set of bits, with the first word not full and the last not empty found cheaply. */
  private static final class Bits {
    private final long[] words;
    private int firstNotFullHint;
    private int lastNonZeroHint = -1;

    Bits(int size) {
      words = new long[(size + 63) / 64];
    }

    void set(int i) {
      int w = i >> 6;
      words[w] |= 1L << i;
      lastNonZeroHint = Math.max(lastNonZeroHint, w);
    }

    void clear(int i) {
      int w = i >> 6;
      words[w] &= ~(1L << i);
      firstNotFullHint = Math.min(firstNotFullHint, w);
    }

    int firstNotFull() {
      while (firstNotFullHint < words.length && words[firstNotFullHint] == -1L) {
        firstNotFullHint++;
      }
      return firstNotFullHint;
    }

    private int lastNonZero() {
      while (lastNonZeroHint >= 0 && words[lastNonZeroHint] == 0) {
        lastNonZeroHint--;
      }
      return lastNonZeroHint;
    }

    /** The words from the first not full to the last not empty: all the set says, in little. */
    long[] window() {
      int from = firstNotFull();
      return Arrays.copyOfRange(words, from, Math.max(from, lastNonZero() + 1));
    }

    /** The words up to the last not empty. */
    long[] upToLastSet() {
      return Arrays.copyOf(words, lastNonZero() + 1);
    }
  }

  /** A memo key: the value, and which OK ops are linearized (the bits from word {@code from}). */
  private static final class Key {
    private final long value;
    private final int from;
    private final long[] words;
    private final int hash;

    Key(long value, int from, long[] words) {
      this.value = value;
      this.from = from;
      this.words = words;
      this.hash = (Long.hashCode(value) * 31 + from) * 31 + Arrays.hashCode(words);
    }

    @Override
    public boolean equals(@Nullable Object o) {
      return o instanceof Key k
          && k.value == value
          && k.from == from
          && Arrays.equals(k.words, words);
    }

    @Override
    public int hashCode() {
      return hash;
    }
  }
}
