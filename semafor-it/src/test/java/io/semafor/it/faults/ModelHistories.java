package io.semafor.it.faults;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * Histories made by running the sequential model itself, so they are linearizable by construction:
 * each op takes effect at its own instant (100 apart) and its invocation and completion are placed
 * around that instant, overlapping their neighbours' as much as asked.
 */
final class ModelHistories {
  private ModelHistories() {}

  /** The semaphore every generated op acts on. */
  static final String SEMAPHORE = "s";

  /**
   * One op to generate.
   *
   * @param kind 0 acquire, 1 release, 2 increment, 3 read
   * @param amount 1 to 3
   * @param before how long before its instant it was invoked (0 to 250)
   * @param after how long after its instant it completed (0 to 250)
   * @param fate 0: UNKNOWN and took effect (possibly after the client gave up); 1: UNKNOWN and did
   *     not; anything else: it was answered (an acquire the value cannot cover then FAILED)
   */
  record Step(int kind, int amount, int before, int after, int fate) {}

  /**
   * The history of {@code steps} from {@code initial}. If {@code concurrent} is false, every op
   * completes before the next is invoked and every op is answered, so every read is determined.
   */
  static List<Op> fromModel(List<Step> steps, long initial, boolean concurrent) {
    List<Op> ops = new ArrayList<>();
    long value = initial;
    for (int i = 0; i < steps.size(); i++) {
      Step s = steps.get(i);
      long instant = 100L * (i + 1);
      long invoked = concurrent ? instant - s.before() : instant - 25;
      long completed = concurrent ? instant + s.after() : instant + 25;
      int client = i % 5;
      Op.Outcome outcome = Op.Outcome.OK;
      boolean takesEffect = true;
      if (concurrent && s.fate() <= 1 && s.kind() != 3) {
        outcome = Op.Outcome.UNKNOWN;
        takesEffect = s.fate() == 0;
        // The client may give up long before the op takes effect.
        completed = invoked + s.after() / 8;
      }
      switch (s.kind()) {
        case 0 -> {
          if (value < s.amount()) {
            takesEffect = false;
            if (outcome == Op.Outcome.OK) {
              outcome = Op.Outcome.FAILED;
            }
          }
          if (takesEffect) {
            value -= s.amount();
          }
          boolean granted = outcome == Op.Outcome.OK;
          ops.add(
              Op.acquire(
                  client,
                  SEMAPHORE,
                  s.amount(),
                  invoked,
                  completed,
                  outcome,
                  granted ? i : -1,
                  granted ? i : -1));
        }
        case 1, 2 -> {
          if (takesEffect) {
            value += s.amount();
          }
          ops.add(
              s.kind() == 1
                  ? Op.release(client, SEMAPHORE, s.amount(), invoked, completed, outcome)
                  : Op.increment(client, SEMAPHORE, s.amount(), invoked, completed, outcome));
        }
        default -> ops.add(Op.read(client, SEMAPHORE, invoked, completed, Op.Outcome.OK, value));
      }
    }
    return ops;
  }

  /** {@code n} random steps, a quarter of each kind, a few UNKNOWN if {@code unknowns}. */
  static List<Step> randomSteps(Random random, int n, int maxSlack, boolean unknowns) {
    List<Step> steps = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      steps.add(
          new Step(
              random.nextInt(4),
              1 + random.nextInt(3),
              random.nextInt(maxSlack + 1),
              random.nextInt(maxSlack + 1),
              unknowns ? random.nextInt(50) : 2));
    }
    return steps;
  }
}
