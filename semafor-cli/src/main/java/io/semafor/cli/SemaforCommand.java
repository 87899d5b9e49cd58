package io.semafor.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ScopeType;

/** The top of the command tree; subcommands do everything. */
@Command(
    name = "semafor",
    description = "Named counting semaphores shared by many processes on many machines.",
    mixinStandardHelpOptions = true,
    versionProvider = Version.class,
    subcommands = {
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
      SnapshotCommand.class
    },
    footer = {
      "",
      "Exit status: 0 success, 1 operation failed (the message names the error code),",
      "2 usage error, 3 cannot reach the server, 4 run lost its permits, 75 timed out,",
      "126/127 run could not execute/find the command, 128+N run was stopped by signal N."
    })
final class SemaforCommand {
  @Option(
      names = "--debug",
      scope = ScopeType.INHERIT,
      description = "Print the stack trace of an unexpected failure.")
  boolean debug;
}
