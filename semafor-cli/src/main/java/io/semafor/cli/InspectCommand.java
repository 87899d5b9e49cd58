package io.semafor.cli;

import io.semafor.ClientInfo;
import io.semafor.client.SemaforClient;
import io.semafor.client.SemaphoreInfo;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;

@Command(
    name = "inspect",
    description = {
      "Show a semaphore in full: its queue, holders and leases.",
      "The queue in arrival order (each waiter's session, kind and amount), holders with what"
          + " they own and their slots, and leases with their ages. Long lists are read page by"
          + " page; --limit shows only the first N of each."
    },
    mixinStandardHelpOptions = true)
final class InspectCommand extends ClientCommand {
  @Parameters(paramLabel = "NAME")
  String name = "";

  @Option(
      names = "--limit",
      paramLabel = "N",
      description = "Show at most the first N entries of each list (default: all of them).")
  int limit = Integer.MAX_VALUE;

  @Override
  int run(SemaforClient client, Output output) {
    if (limit < 1) {
      throw new ParameterException(spec.commandLine(), "--limit: must be positive, was " + limit);
    }
    SemaphoreInfo info = client.semaphore(name).inspect(limit);
    output.result(text(info), json(info));
    return ExitCodes.OK;
  }

  static String text(SemaphoreInfo info) {
    StringBuilder b = new StringBuilder(Parsing.describe(info));
    b.append(
        String.format(
            "%nrevision %d, owned %d, leased %d, in transit %d",
            info.revision(), info.owned(), info.leased(), info.undelivered()));
    b.append(String.format("%nqueue (%d):", Math.max(info.waiters(), info.queue().size())));
    for (SemaphoreInfo.Waiter w : info.queue()) {
      b.append(
          String.format(
              "%n  #%d session %d (%s) request %d: %s %d%s",
              w.sequence(),
              w.sessionId(),
              w.client(),
              w.requestId(),
              w.kind(),
              w.amount(),
              w.timesOutIn() == null ? "" : ", times out in " + Parsing.show(w.timesOutIn())));
    }
    notShown(b, info.waiters() - info.queue().size());
    b.append(String.format("%nholders (%d):", Math.max(info.holders(), info.holderList().size())));
    for (SemaphoreInfo.Holder h : info.holderList()) {
      b.append(
          String.format(
              "%n  session %d (%s) owns %d%s",
              h.sessionId(),
              h.client(),
              h.owned(),
              h.slots().isEmpty() ? "" : ", slots " + h.slots()));
    }
    notShown(b, info.holders() - info.holderList().size());
    b.append(String.format("%nleases (%d):", Math.max(info.leaseCount(), info.leases().size())));
    for (SemaphoreInfo.LeaseInfo l : info.leases()) {
      b.append(
          String.format(
              "%n  lease %d: %d%s, token %d, age %s, ends in %s%s",
              l.permitId(),
              l.amount(),
              l.slots().isEmpty() ? "" : " (slots " + l.slots() + ")",
              l.token(),
              Parsing.show(l.age()),
              Parsing.show(l.expiresIn()),
              l.sessionId() == 0 ? "" : ", not yet delivered to session " + l.sessionId()));
    }
    notShown(b, info.leaseCount() - info.leases().size());
    return b.toString();
  }

  /**
   * Says how many entries of a list --limit left out. The counts are the last page's, so with
   * entries coming and going while the pages are read they are close, not exact.
   */
  private static void notShown(StringBuilder b, long more) {
    if (more > 0) {
      b.append(String.format("%n  ... and %d more", more));
    }
  }

  /** Milliseconds until the waiter times out; -1 if it waits until served. */
  private static long timesOutInMillis(SemaphoreInfo.Waiter w) {
    Duration left = w.timesOutIn();
    return left == null ? -1 : left.toMillis();
  }

  /** A client's description as JSON: {@code {"name": …, "host": …, "pid": …}}. */
  static Map<String, Object> client(ClientInfo c) {
    return Output.fields("name", c.name(), "host", c.host(), "pid", c.pid());
  }

  static Map<String, Object> json(SemaphoreInfo info) {
    List<Map<String, Object>> queue = new ArrayList<>();
    for (SemaphoreInfo.Waiter w : info.queue()) {
      queue.add(
          Output.fields(
              "sequence",
              w.sequence(),
              "sessionId",
              w.sessionId(),
              "requestId",
              w.requestId(),
              "kind",
              w.kind(),
              "amount",
              w.amount(),
              "timesOutInMillis",
              timesOutInMillis(w),
              "client",
              client(w.client())));
    }
    List<Map<String, Object>> holders = new ArrayList<>();
    for (SemaphoreInfo.Holder h : info.holderList()) {
      holders.add(
          Output.fields(
              "sessionId",
              h.sessionId(),
              "owned",
              h.owned(),
              "slots",
              h.slots(),
              "client",
              client(h.client())));
    }
    List<Map<String, Object>> leases = new ArrayList<>();
    for (SemaphoreInfo.LeaseInfo l : info.leases()) {
      leases.add(
          Output.fields(
              "permitId",
              l.permitId(),
              "sessionId",
              l.sessionId(),
              "amount",
              l.amount(),
              "slots",
              l.slots(),
              "token",
              l.token(),
              "ageMillis",
              l.age().toMillis(),
              "expiresInMillis",
              l.expiresIn().toMillis()));
    }
    return Output.fields(
        "name",
        info.name(),
        "value",
        info.value(),
        "revision",
        info.revision(),
        "options",
        Parsing.options(info.options()),
        "owned",
        info.owned(),
        "leased",
        info.leased(),
        "inTransit",
        info.undelivered(),
        "counts",
        Output.fields(
            "waiters", info.waiters(), "holders", info.holders(), "leases", info.leaseCount()),
        "queue",
        queue,
        "holders",
        holders,
        "leases",
        leases);
  }
}
