package io.semafor.conformance;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Locale;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * One step of a case (conformance/README.md, "Steps"), as the parser read it: an actor's operation,
 * the await of a started operation, or an environment step. {@code index} is the step's place in
 * the file (from 1), for messages; {@code note} is the case's own comment.
 */
public sealed interface Step permits Step.OpStep, Step.AwaitStep, Step.EnvStep {
  int index();

  @Nullable String note();

  /**
   * {@code actor} performs {@code op} with {@code args}. With {@code start} it is started under
   * that handle and not awaited; otherwise it is awaited and its outcome held to {@code expect}
   * (null: it must succeed), polling a read until it matches for at most {@code withinMs}. {@code
   * bind} names variables for result fields. {@code needsSession}: the step shows something only a
   * session has (an owned permit, what its end gives back), and a runner whose callers have none
   * (HTTP) leaves it out and runs the rest of the case.
   */
  record OpStep(
      int index,
      @Nullable String note,
      String actor,
      Op op,
      ObjectNode args,
      @Nullable JsonNode expect,
      Map<String, String> bind,
      @Nullable String start,
      @Nullable Long withinMs,
      boolean needsSession)
      implements Step {}

  /**
   * Awaits the operation started under {@code handle} for at most {@code withinMs}, and holds its
   * outcome to {@code expect}; or, with {@code pendingAfterMs}, checks it has no outcome yet after
   * that long (the handle stays open).
   */
  record AwaitStep(
      int index,
      @Nullable String note,
      String handle,
      @Nullable JsonNode expect,
      @Nullable Long pendingAfterMs,
      Map<String, String> bind,
      long withinMs)
      implements Step {}

  /** What the runner does to an actor's connection, or a pause. */
  enum Env {
    /** Drop the actor's connection; new ones are refused until {@link #RESTORE}. */
    CUT,
    /** Accept the actor's connections again after {@link #CUT}. */
    RESTORE,
    /** Hold everything the server sends the actor (it hears nothing) until {@link #THAW}. */
    DEAFEN,
    /** Hold the actor's traffic both ways, as for a stopped process, until {@link #THAW}. */
    FREEZE,
    /** Deliver what was held, in order, and let traffic flow again. */
    THAW,
    /** The actor's process dies: its connection drops with no close, for good. */
    KILL,
    /** Do nothing for {@code ms}. */
    WAIT_MS;

    String wireName() {
      return name().toLowerCase(Locale.ROOT);
    }

    /** The tag a case using this step must carry; empty for {@code wait_ms}. */
    String tag() {
      return switch (this) {
        case CUT, RESTORE -> "cut";
        case DEAFEN -> "deafen";
        case FREEZE -> "freeze";
        case KILL -> "kill";
        case THAW, WAIT_MS -> ""; // a thaw ends a deafen or freeze, whose tag the case carries
      };
    }
  }

  /** An environment step: {@code kind} on {@code actor} (null for {@code wait_ms}). */
  record EnvStep(int index, @Nullable String note, Env kind, @Nullable String actor, long ms)
      implements Step {}
}
