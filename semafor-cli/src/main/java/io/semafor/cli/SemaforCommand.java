package io.semafor.cli;

import java.util.List;
import java.util.Objects;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ScopeType;

/**
 * The top of the command tree; subcommands do everything. They are added by {@link #commandLine},
 * not listed in the annotation, so that a command line naming one builds only that one.
 */
@Command(
    name = "semafor",
    description = "Named counting semaphores shared by many processes on many machines.",
    mixinStandardHelpOptions = true,
    versionProvider = Version.class,
    footer = {
      "",
      "Exit status: 0 success, 1 operation failed (the message names the error code), 2 usage"
          + " error, 3 cannot reach the server, 4 run lost its permits, 75 timed out, 126/127 run"
          + " could not execute/find the command, 128+N run was stopped by signal N."
    })
final class SemaforCommand {
  @Option(
      names = "--debug",
      scope = ScopeType.INHERIT,
      description = "Print the stack trace of an unexpected failure.")
  boolean debug;

  /** Every subcommand, in the order {@code semafor --help} lists them. */
  static final List<Class<?>> SUBCOMMANDS =
      List.of(
          ServerCommand.class,
          CreateCommand.class,
          DeleteCommand.class,
          GetCommand.class,
          SetCommand.class,
          IncCommand.class,
          DecCommand.class,
          AcquireCommand.class,
          ReleaseCommand.class,
          RenewCommand.class,
          WaitZeroCommand.class,
          SemopCommand.class,
          ListCommand.class,
          InspectCommand.class,
          WatchCommand.class,
          RunCommand.class,
          BenchCommand.class,
          ClusterCommand.class,
          SessionCommand.class,
          SnapshotCommand.class,
          AuthCommand.class);

  /**
   * The command tree for a command line starting with {@code first}: with only the subcommand that
   * {@code first} names, or all of them when it names none (--help, a usage error). picocli reads
   * the annotations of every command it is given, which took a third of a {@code semafor get}'s
   * start-up with all 18 (decision 0025); what a command line can do does not change, since it runs
   * at most the subcommand its first word names.
   */
  static CommandLine commandLine(String first) {
    CommandLine cli = new CommandLine(new SemaforCommand());
    Class<?> named = null;
    for (Class<?> c : SUBCOMMANDS) {
      if (Objects.requireNonNull(c.getAnnotation(Command.class)).name().equals(first)) {
        named = c;
      }
    }
    if (named != null) {
      cli.addSubcommand(named);
    } else {
      SUBCOMMANDS.forEach(cli::addSubcommand);
    }
    return cli;
  }
}
