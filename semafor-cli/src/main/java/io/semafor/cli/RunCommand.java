package io.semafor.cli;

import io.semafor.client.NamedSemaphore;
import io.semafor.client.Permit;
import io.semafor.client.SemaforClient;
import io.semafor.server.options.Durations;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/*
 * Why it is built this way: the command must never run without the permits (the flock / consul lock
 * contract, docs/cli.md). So the permits are given back only once the command has ended, whatever
 * ends `run`: the command finishing, a signal to `run` (the JVM runs shutdown hooks on SIGINT,
 * SIGTERM and SIGHUP; the hook stops the command and waits for the release), or the session being
 * lost. And because a server that cannot be heard from may expire the session without this process
 * knowing (it was cut off) — or may just be paused, which does not expire it — the command is
 * stopped once nothing was heard from a server for half the session TTL: with the SIGKILL grace
 * capped at a quarter TTL, it is gone before the session could have ended on the server.
 */

@Command(
    name = "run",
    description = {
      "Run a command while holding K owned permits, like flock and consul lock.",
      "Acquires them (the session kept alive), runs COMMAND, and gives them back only once it has"
          + " ended; exits with its status. If they cannot be had within --timeout, exits 75"
          + " without running it.",
      "SIGINT, SIGTERM or SIGHUP to this process: the command gets SIGTERM (SIGKILL after"
          + " --kill-after), then the permits go back, then this exits 130, 143 or 129.",
      "The session lost, or no answer from the server for half the session TTL: the command is"
          + " stopped the same way (the SIGKILL grace at most a quarter TTL) and this exits 4.",
      "The command sees SEMAFOR_TOKEN (the fencing token), SEMAFOR_SLOTS (comma-separated) and"
          + " SEMAFOR_SESSION. Not found: 127; not executable: 126."
    },
    mixinStandardHelpOptions = true)
final class RunCommand extends ClientCommand {
  /** How often the watchdog looks at how long the server has been silent. */
  private static final Duration WATCH_EVERY = Duration.ofMillis(50);

  @Parameters(index = "0", paramLabel = "NAME")
  String name = "";

  @Parameters(
      index = "1..*",
      arity = "1..*",
      paramLabel = "COMMAND",
      description = "The command and its arguments, after --.")
  List<String> command = new ArrayList<>();

  @Option(
      names = {"-n", "--permits"},
      paramLabel = "K",
      defaultValue = "1",
      description = "Permits to hold (default ${DEFAULT-VALUE}).")
  long permits = 1;

  @Option(
      names = "--timeout",
      paramLabel = "D",
      defaultValue = "forever",
      converter = Durations.class,
      description = "How long to wait for them (default forever).")
  Duration timeout = Durations.FOREVER;

  @Option(
      names = "--kill-after",
      paramLabel = "D",
      defaultValue = "10s",
      converter = Durations.class,
      description =
          "After SIGTERM, how long the command has to end before SIGKILL (default"
              + " ${DEFAULT-VALUE}; at most a quarter of the session TTL when the session is in"
              + " doubt).")
  Duration killAfter = Duration.ofSeconds(10);

  @Option(
      names = "--create",
      paramLabel = "N",
      description = "Create the semaphore with value N if it does not exist.")
  @Nullable Long create;

  /** The session is in doubt: exit without waiting on the server (it ends the session itself). */
  private volatile boolean sessionInDoubt;

  @Override
  boolean leavesSession() {
    return sessionInDoubt;
  }

  @Override
  int run(SemaforClient client, Output output) throws InterruptedException, IOException {
    if (killAfter.isNegative()) {
      throw new picocli.CommandLine.ParameterException(
          spec.commandLine(), "--kill-after: must not be negative, was " + killAfter);
    }
    // The hook is in place before the command can start: a signal that lands while the command
    // is being started must still stop it before the JVM exits (otherwise the command would run
    // on, orphaned, and its permits go back when the session expires).
    Supervision supervision = new Supervision();
    Thread hook = new Thread(supervision::stopOnSignal, "semafor-run-stop");
    Runtime.getRuntime().addShutdownHook(hook);
    // before the permits are asked for: a session lost between the grant and the command's start
    // must keep the command from starting (a listener added later would never hear of it)
    Duration doubtGrace = min(killAfter, client.sessionTtl().dividedBy(4));
    client.onSessionLost(
        () -> {
          sessionInDoubt = true;
          supervision.sessionLost(doubtGrace);
        });
    try {
      return acquireAndRun(client, supervision);
    } finally {
      try {
        Runtime.getRuntime().removeShutdownHook(hook);
      } catch (IllegalStateException shuttingDown) {
        // a signal is ending this process: the hook is running, and the JVM exits with 128 + signal
      }
    }
  }

  private int acquireAndRun(SemaforClient client, Supervision supervision)
      throws InterruptedException {
    NamedSemaphore semaphore = client.semaphore(name);
    if (create != null) {
      semaphore.create(create);
    }
    Permit permit = semaphore.tryAcquirePermit(permits, timeout);
    if (permit == null) {
      say("timed out waiting for " + permits + " of " + name + "; not running");
      return ExitCodes.TIMED_OUT;
    }
    Child child;
    try {
      child = supervision.start(() -> Child.start(command, environment(client, permit)));
    } catch (IOException e) {
      permit.close();
      boolean missing = Child.notFound(e);
      say(command.get(0) + ": " + (missing ? "command not found" : "cannot execute"));
      return missing ? ExitCodes.NOT_FOUND : ExitCodes.CANNOT_EXECUTE;
    }
    if (child == null) {
      if (sessionInDoubt) {
        // the session was lost before the command could start: it never ran
        var unused = permit.releaseAsync();
        say("the session was lost before " + command.get(0) + " could start; not running it");
        return ExitCodes.LOST;
      }
      // a signal came first: the command never ran; the JVM is exiting with 128 + signal
      permit.close();
      return ExitCodes.FAILED;
    }
    return supervise(client, permit, child, supervision);
  }

  private int supervise(SemaforClient client, Permit permit, Child child, Supervision supervision)
      throws InterruptedException {
    Duration ttl = client.sessionTtl();
    Duration doubtGrace = min(killAfter, ttl.dividedBy(4));
    Thread watchdog =
        new Thread(
            () -> {
              try {
                while (!child.await(WATCH_EVERY)) {
                  if (client.sinceLastHeardFromServer().compareTo(ttl.dividedBy(2)) >= 0) {
                    sessionInDoubt = true;
                    child.stop(
                        "nothing was heard from the server for half the session TTL", doubtGrace);
                  }
                }
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            },
            "semafor-run-watchdog");
    watchdog.setDaemon(true);
    watchdog.start();
    int status;
    try {
      status = awaitEnd(child);
    } finally {
      if (sessionInDoubt) {
        // no answer can be waited for: the permits return when the server ends the session
        var unused = permit.releaseAsync();
      } else {
        try {
          permit.close(); // only now: the command has ended
        } catch (RuntimeException e) {
          say(
              "giving back the permits failed ("
                  + e.getMessage()
                  + "); they return with the"
                  + " session");
        }
      }
      supervision.released();
    }
    String why = child.stoppedBecause();
    if (why != null && !why.equals(Supervision.SIGNAL)) {
      say("stopped " + command.get(0) + " (pid " + child.pid() + "): " + why);
      return ExitCodes.LOST;
    }
    return status;
  }

  /**
   * Waits for the command to end. Interrupted, this thread still does not return before it has
   * ended (the permits go back right after): it stops the command, waits on, and keeps the
   * interrupt for its caller.
   */
  private int awaitEnd(Child child) {
    boolean interrupted = false;
    try {
      while (true) {
        try {
          return child.await();
        } catch (InterruptedException e) {
          interrupted = true;
          child.stop("this process was interrupted", killAfter);
        }
      }
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /**
   * Who may start the command, and the shutdown hook's side of it: the command is started only if
   * no signal came first, and a signal that comes later stops it and waits until its permits are
   * back. Thread-safe: {@link #start} runs on the main thread, {@link #stopOnSignal} on the hook.
   */
  private final class Supervision {
    static final String SIGNAL = "a signal";

    private final CountDownLatch released = new CountDownLatch(1);
    private @Nullable Child child; // guarded by this
    private boolean signalled; // guarded by this
    private boolean lost; // guarded by this

    /**
     * Starts the command unless a signal came first or the session was lost (then null, and nothing
     * is started).
     */
    synchronized @Nullable Child start(ChildStarter starter) throws IOException {
      if (signalled || lost) {
        return null;
      }
      child = starter.start();
      return child;
    }

    /** The session was lost: the command is stopped if it runs, and will not start if not yet. */
    void sessionLost(Duration grace) {
      Child running;
      synchronized (this) {
        lost = true;
        running = child;
      }
      if (running != null) {
        running.stop("the session was lost", grace);
      }
    }

    /** The hook: stops the command if it runs, and waits (bounded) until the permits are back. */
    void stopOnSignal() {
      Child running;
      synchronized (this) {
        signalled = true;
        running = child;
      }
      if (running == null) {
        return; // nothing runs, and nothing will: the permits return with the session
      }
      running.stop(SIGNAL, killAfter);
      try {
        released.await(killAfter.plusSeconds(10).toMillis(), TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }

    void released() {
      released.countDown();
    }
  }

  /** Starts the command; an interface so that {@link Supervision#start} can throw IOException. */
  @FunctionalInterface
  private interface ChildStarter {
    Child start() throws IOException;
  }

  private Map<String, String> environment(SemaforClient client, Permit permit) {
    return Map.of(
        "SEMAFOR_TOKEN",
        Long.toString(permit.token()),
        "SEMAFOR_SLOTS",
        permit.slots().stream().map(String::valueOf).collect(Collectors.joining(",")),
        "SEMAFOR_SESSION",
        Long.toString(client.sessionId()));
  }

  private void say(String message) {
    spec.commandLine().getErr().println("semafor run: " + message);
  }

  private static Duration min(Duration a, Duration b) {
    return a.compareTo(b) <= 0 ? a : b;
  }
}
