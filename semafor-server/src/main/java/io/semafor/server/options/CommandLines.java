package io.semafor.server.options;

import java.io.PrintWriter;
import picocli.CommandLine;

/**
 * How the {@code semafor} and {@code semafor-server} commands report a user's mistake: one line
 * that names the problem and the command to get help, never the whole usage text or a stack trace.
 * Stateless; safe from any thread.
 */
public final class CommandLines {
  private CommandLines() {}

  /**
   * A handler that prints {@code COMMAND: MESSAGE}, picocli's "did you mean" suggestions if any,
   * and {@code Try 'COMMAND --help'}, to the command's error stream; it returns the command's
   * usage-error status (2).
   */
  public static CommandLine.IParameterExceptionHandler oneLineUsageErrors() {
    return new OneLineUsageErrors();
  }

  /**
   * A named class, not a lambda: picocli's interfaces are Java 5 class files, and a lambda
   * implementing one keeps it (and picocli's own handlers) out of the CLI's CDS archive (decision
   * 0025).
   */
  private static final class OneLineUsageErrors implements CommandLine.IParameterExceptionHandler {
    @Override
    public int handleParseException(CommandLine.ParameterException e, String[] args) {
      CommandLine line = e.getCommandLine();
      PrintWriter err = line.getErr();
      String command = line.getCommandSpec().qualifiedName();
      err.println(command + ": " + e.getMessage());
      CommandLine.UnmatchedArgumentException.printSuggestions(e, err);
      err.println("Try '" + command + " --help' for more information.");
      err.flush();
      return line.getCommandSpec().exitCodeOnInvalidInput();
    }
  }

  /**
   * Whether {@code e} says that a server could not listen: its port is in use, the address is not
   * this machine's, or binding is not permitted.
   */
  public static boolean cannotListen(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof java.io.IOException || t instanceof io.netty.channel.ChannelException) {
        return true;
      }
    }
    return false;
  }

  /**
   * The message of {@code e}'s root cause, without the Netty native prefix ({@code bind(..) failed
   * with error(-98): Address already in use} reads {@code Address already in use}).
   */
  public static String rootMessage(Throwable e) {
    Throwable root = e;
    while (root.getCause() != null) {
      root = root.getCause();
    }
    String message = String.valueOf(root.getMessage());
    int detail = message.indexOf("failed with error(");
    return detail >= 0 && message.contains("): ")
        ? message.substring(message.indexOf("): ") + 3)
        : message;
  }

  /**
   * {@code n} and the noun, singular for one: {@code 1 semaphore}, {@code 2 semaphores}, {@code 0
   * sessions}. {@code noun} is the singular, made plural with an {@code s}.
   */
  public static String count(long n, String noun) {
    return n + " " + noun + (n == 1 ? "" : "s");
  }

  /** Whether the command line that ran asked for {@code --debug} on any of its commands. */
  public static boolean debug(CommandLine.ParseResult parsed) {
    for (CommandLine line : parsed.asCommandLineList()) {
      CommandLine.ParseResult own = line.getParseResult();
      if (own != null && own.hasMatchedOption("--debug")) {
        return true;
      }
    }
    return false;
  }
}
