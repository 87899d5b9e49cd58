package io.semafor.cli;

import io.semafor.client.SemaforClient;
import java.util.concurrent.Callable;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * A subcommand that talks to a server: connects, runs, and closes the client (ending its session,
 * so whatever it owns goes back, and acknowledging what it was granted so non-owned takes stay
 * taken).
 */
abstract class ClientCommand implements Callable<Integer> {
  @Mixin ServerOptions server = new ServerOptions();

  @Spec CommandSpec spec = CommandSpec.create();

  @Override
  public final Integer call() throws Exception {
    Output output =
        new Output(spec.commandLine().getOut(), spec.commandLine().getErr(), server.json);
    SemaforClient client = server.connect();
    try {
      return run(client, output);
    } finally {
      if (!leavesSession()) {
        client.close();
      }
    }
  }

  /**
   * Whether to exit without ending the session: when the server cannot be heard, ending it would
   * wait for an answer that may not come, and the server ends it by itself after its TTL.
   */
  boolean leavesSession() {
    return false;
  }

  boolean json() {
    return server.json;
  }

  /** Does the work; returns the exit status. */
  abstract int run(SemaforClient client, Output output) throws Exception;
}
