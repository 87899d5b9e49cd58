package io.semafor.cli;

import io.semafor.client.Lease;
import io.semafor.client.NamedSemaphore;
import io.semafor.client.Permit;
import io.semafor.client.SemaforClient;
import io.semafor.server.options.Durations;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(
    name = "acquire",
    description = {
      "Take exactly N permits (all or nothing). Exit 75 if it timed out.",
      "Plain: consumed, as by dec (give them back with inc).",
      "--hold: owned, kept until Ctrl-C or until this process dies (then back after the TTL).",
      "--lease TTL: prints the permit id and fencing token and exits; back at the TTL unless"
          + " renewed (semafor renew) or released (semafor release) from any process."
    },
    mixinStandardHelpOptions = true)
final class AcquireCommand extends ClientCommand {
  @Parameters(index = "0", paramLabel = "NAME")
  String name = "";

  @Parameters(
      index = "1",
      arity = "0..1",
      paramLabel = "N",
      defaultValue = "1",
      description = "Default 1.")
  long amount;

  @Option(
      names = "--timeout",
      paramLabel = "D",
      defaultValue = "forever",
      converter = Durations.class,
      description = "How long to wait (500ms, 10s, forever; default).")
  Duration timeout = Durations.FOREVER;

  @ArgGroup(exclusive = true)
  @Nullable Mode mode;

  static final class Mode {
    @Option(names = "--hold", description = "Own the permits until Ctrl-C or death.")
    boolean hold;

    @Option(
        names = "--lease",
        paramLabel = "TTL",
        converter = Durations.class,
        description = "Take them as a lease that ends after TTL.")
    @Nullable Duration lease;
  }

  @Override
  int run(SemaforClient client, Output output) throws InterruptedException {
    NamedSemaphore semaphore = client.semaphore(name);
    Mode m = mode;
    if (m != null && m.hold) {
      return hold(semaphore, output);
    }
    if (m != null && m.lease != null) {
      return lease(semaphore, m.lease, output);
    }
    boolean taken =
        Durations.isForever(timeout)
            ? acquireForever(semaphore)
            : semaphore.tryAcquire(amount, timeout);
    if (!taken) {
      output.timedOut(timedOut(), Output.fields("name", name, "acquired", false, "amount", 0));
      return ExitCodes.TIMED_OUT;
    }
    output.result(
        "acquired " + amount + " of " + name,
        Output.fields("name", name, "acquired", true, "amount", amount));
    return ExitCodes.OK;
  }

  private String timedOut() {
    return "acquire "
        + name
        + ": "
        + amount
        + " not free within "
        + Durations.format(timeout)
        + "; nothing taken";
  }

  private boolean acquireForever(NamedSemaphore semaphore) throws InterruptedException {
    semaphore.acquire(amount);
    return true;
  }

  private int hold(NamedSemaphore semaphore, Output output) throws InterruptedException {
    Permit permit =
        Durations.isForever(timeout)
            ? semaphore.acquirePermit(amount)
            : semaphore.tryAcquirePermit(amount, timeout);
    if (permit == null) {
      output.timedOut(timedOut(), Output.fields("name", name, "acquired", false));
      return ExitCodes.TIMED_OUT;
    }
    output.result(
        "holding "
            + amount
            + " of "
            + name
            + " (slots "
            + permit.slots()
            + ", token "
            + permit.token()
            + "); Ctrl-C releases",
        Output.fields(
            "name",
            name,
            "acquired",
            true,
            "amount",
            amount,
            "slots",
            permit.slots(),
            "token",
            permit.token()));
    CountDownLatch forever = new CountDownLatch(1);
    // Ctrl-C runs shutdown hooks; the client's close ends the session, so the permits go back
    Runtime.getRuntime().addShutdownHook(new Thread(forever::countDown, "release-on-exit"));
    forever.await();
    return ExitCodes.OK;
  }

  private int lease(NamedSemaphore semaphore, Duration ttl, Output output)
      throws InterruptedException {
    // returns once the lease is delivered (the server has our acknowledgement), so it outlives
    // this process from the moment its id is printed, however the process ends after that
    Lease lease = semaphore.acquireLease(amount, ttl, timeout);
    if (lease == null) {
      output.timedOut(timedOut(), Output.fields("name", name, "acquired", false));
      return ExitCodes.TIMED_OUT;
    }
    output.result(
        "lease "
            + lease.permitId()
            + " on "
            + amount
            + " of "
            + name
            + ", token "
            + lease.token()
            + ", ends in "
            + Parsing.show(ttl),
        Output.fields(
            "name", name,
            "acquired", true,
            "permitId", lease.permitId(),
            "amount", lease.amount(),
            "token", lease.token(),
            "slots", lease.slots(),
            "ttlMillis", ttl.toMillis()));
    return ExitCodes.OK;
  }
}
