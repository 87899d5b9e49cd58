package io.semafor.cli;

import picocli.CommandLine.Command;

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
      SnapshotCommand.class
    },
    footer = {
      "",
      "Exit status: 0 success, 1 operation failed (the message names the error code),",
      "2 usage error, 3 cannot reach the server, 75 timed out."
    })
final class SemaforCommand {}
