package io.semafor.cli;

import static io.semafor.server.options.CommandLines.count;

import io.semafor.client.SnapshotDownload;
import io.semafor.core.Limits;
import io.semafor.replication.ClusterSpec;
import io.semafor.replication.ReplicatorProvider;
import io.semafor.replication.SnapshotFile;
import io.semafor.replication.group.GroupMember;
import io.semafor.server.options.Durations;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code semafor snapshot save|restore|status}: back up the whole state of a running server or
 * cluster to a file, and seed a new node's data directory from one (decision 0022).
 */
@Command(
    name = "snapshot",
    description = "Back up the whole state to a file, and start new nodes from one.",
    mixinStandardHelpOptions = true,
    subcommands = {
      SnapshotCommand.Save.class,
      SnapshotCommand.Restore.class,
      SnapshotCommand.Status.class
    })
final class SnapshotCommand {

  /** A backup file could not be written, read or used: exit 1, one line, no stack trace. */
  static final class Problem extends RuntimeException {
    private static final long serialVersionUID = 1L;

    Problem(String message, @Nullable Throwable cause) {
      super(message, cause);
    }
  }

  /** Reads and verifies a backup file; a damaged or missing one is a {@link Problem}. */
  static SnapshotFile.Loaded load(Path file) {
    try {
      return SnapshotFile.read(file, Limits.DEFAULT);
    } catch (SnapshotFile.CorruptException e) {
      throw new Problem(file + ": " + e.getMessage(), e);
    } catch (IOException e) {
      throw new Problem("cannot read " + file + ": " + e.getMessage(), e);
    }
  }

  private static Map<String, Object> describe(Path file, SnapshotFile.Header h) {
    return Output.fields(
        "file",
        file.toString(),
        "semaphores",
        h.semaphores(),
        "sessions",
        h.sessions(),
        "bytes",
        h.fileBytes(),
        "term",
        h.term(),
        "index",
        h.index(),
        "revision",
        h.revision(),
        "created",
        Instant.ofEpochMilli(h.createdMillis()).toString());
  }

  private static String position(SnapshotFile.Header h) {
    return h.singleNode() ? "single node" : "index " + h.index() + ", term " + h.term();
  }

  @Command(
      name = "save",
      description = {
        "Save a consistent snapshot of the whole state to FILE.",
        "It is written to FILE.part, then renamed. In a cluster the leader takes it at a"
            + " position in its log."
      },
      mixinStandardHelpOptions = true)
  static final class Save implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "FILE", description = "Where to write it.")
    Path file = Path.of("semafor.snapshot");

    @Mixin ServerOptions server = new ServerOptions();

    @Option(
        names = "--timeout",
        paramLabel = "D",
        defaultValue = "5m",
        converter = Durations.class,
        description = "Give up if nothing arrives for this long (default ${DEFAULT-VALUE}).")
    @Nullable Duration timeout = Duration.ofMinutes(5);

    @Spec CommandSpec spec = CommandSpec.create();

    @Override
    public Integer call() {
      Output output =
          new Output(spec.commandLine().getOut(), spec.commandLine().getErr(), server.json);
      Path target = file.toAbsolutePath();
      Path partial = target.resolveSibling(target.getFileName() + ".part");
      SnapshotDownload.Result result;
      io.semafor.client.TlsConfig tls = server.tls.enabled() ? server.tls.config() : null;
      try (OutputStream out = Files.newOutputStream(partial)) {
        result =
            SnapshotDownload.save(
                server.server,
                out,
                timeout == null ? Duration.ofDays(365) : timeout,
                tls,
                server.credentials.token());
      } catch (io.semafor.client.SemaforException e) {
        deleteQuietly(partial);
        if (e.code() == io.semafor.ErrorCode.UNAVAILABLE) {
          throw new ServerOptions.Unreachable(server.server, e);
        }
        throw e;
      } catch (IllegalArgumentException e) {
        deleteQuietly(partial);
        throw new ServerOptions.BadOption("--server: " + e.getMessage(), e);
      } catch (IOException e) {
        deleteQuietly(partial);
        throw new Problem("snapshot not saved: " + e.getMessage(), e);
      }
      // what arrived is checked as restore will check it, before it takes the file's name
      SnapshotFile.Loaded loaded = load(partial);
      try {
        Files.move(
            partial, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      } catch (IOException e) {
        deleteQuietly(partial);
        throw new Problem("cannot write " + file + ": " + e.getMessage(), e);
      }
      SnapshotFile.Header h = loaded.header();
      Map<String, Object> fields = describe(file, h);
      fields.put("server", result.server());
      output.result(
          "saved "
              + count(h.semaphores(), "semaphore")
              + ", "
              + count(h.sessions(), "session")
              + " ("
              + count(h.fileBytes(), "byte")
              + ", "
              + position(h)
              + ") from "
              + result.server()
              + " to "
              + file,
          fields);
      return ExitCodes.OK;
    }

    private static void deleteQuietly(Path p) {
      try {
        Files.deleteIfExists(p);
      } catch (IOException ignored) {
        // nothing better to do: the error that brought us here is the one to report
      }
    }
  }

  @Command(
      name = "restore",
      description = {
        "Seed a new cluster node's empty --data-dir from FILE.",
        "Start the node with the same --data-dir afterwards. Restore every node of a new cluster"
            + " from the same file. For a single in-memory node use `semafor server --restore"
            + " FILE` instead."
      },
      mixinStandardHelpOptions = true)
  static final class Restore implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "FILE", description = "A file from `snapshot save`.")
    Path file = Path.of("semafor.snapshot");

    @Option(
        names = "--data-dir",
        paramLabel = "DIR",
        required = true,
        description = "The new node's data directory: absent or empty.")
    Path dataDir = Path.of("data");

    @Option(
        names = "--node-id",
        paramLabel = "ID",
        description = "The node it is for (checked against --peers; printed in the next step).")
    @Nullable String nodeId;

    @Option(
        names = "--peers",
        paramLabel = "ID=HOST:CLIENT_PORT:RAFT_PORT,...",
        description = "The new cluster's members, as the node will be started with.")
    @Nullable String peers;

    @Option(
        names = "--replicator",
        paramLabel = "microraft|ratis",
        defaultValue = "microraft",
        description =
            "The replicator the node will run (default ${DEFAULT-VALUE}, as `semafor server`):"
                + " the layout of its data directory. microraft needs --node-id and --peers: its"
                + " log stores them.")
    String replicator = "microraft";

    @Option(names = "--json", description = "Print one JSON object instead of text.")
    boolean json;

    @Spec CommandSpec spec = CommandSpec.create();

    @Override
    public Integer call() {
      ReplicatorProvider provider;
      try {
        provider = ReplicatorProvider.named(replicator);
      } catch (IllegalArgumentException e) {
        throw new ServerOptions.BadOption("--" + e.getMessage(), e);
      }
      if (provider.seedNeedsMembers() && (nodeId == null || peers == null)) {
        throw new ServerOptions.BadOption(
            "--node-id and --peers: the "
                + provider.name()
                + " replicator's log stores them, so restoring for it needs both (or"
                + " --replicator ratis)",
            null);
      }
      if ((nodeId == null) != (peers == null)) {
        throw new ServerOptions.BadOption(
            "--node-id and --peers go together (or leave both out)", null);
      }
      List<GroupMember> members = List.of();
      if (nodeId != null && peers != null) {
        try {
          // the same check the node makes at start, made now so a typo shows before the copy
          members = ClusterSpec.parseMembers(peers);
          ClusterSpec.of(nodeId, members, dataDir, ClusterSpec.Durability.FSYNC);
        } catch (IllegalArgumentException e) {
          throw new ServerOptions.BadOption(String.valueOf(e.getMessage()), e);
        }
      }
      Output output = new Output(spec.commandLine().getOut(), spec.commandLine().getErr(), json);
      SnapshotFile.Loaded loaded = load(file);
      ReplicatorProvider.Seeded seeded;
      try {
        seeded = provider.seed(dataDir, loaded, nodeId, members);
      } catch (FileAlreadyExistsException e) {
        throw new Problem("--data-dir: " + e.getMessage(), e);
      } catch (IOException e) {
        throw new Problem("cannot seed " + dataDir + ": " + e.getMessage(), e);
      }
      long term = seeded.term();
      long index = seeded.index();
      SnapshotFile.Header h = loaded.header();
      Map<String, Object> fields = describe(file, h);
      fields.put("dataDir", dataDir.toString());
      fields.put("restoredTerm", term);
      fields.put("restoredIndex", index);
      String next =
          nodeId == null
              ? "start the node with --data-dir " + dataDir
              : "start it with: semafor server "
                  + (provider.name().equals(ReplicatorProvider.DEFAULT)
                      ? ""
                      : "--replicator " + provider.name() + " ")
                  + "--node-id "
                  + nodeId
                  + " --peers "
                  + peers
                  + " --data-dir "
                  + dataDir;
      output.result(
          "restored "
              + count(h.semaphores(), "semaphore")
              + ", "
              + count(h.sessions(), "session")
              + " ("
              + position(h)
              + ") into "
              + dataDir
              + "; "
              + next,
          fields);
      return ExitCodes.OK;
    }
  }

  @Command(
      name = "status",
      description = "Verify FILE and print what it holds (exit 1 if it is damaged).",
      mixinStandardHelpOptions = true)
  static final class Status implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "FILE", description = "A file from `snapshot save`.")
    Path file = Path.of("semafor.snapshot");

    @Option(names = "--json", description = "Print one JSON object instead of text.")
    boolean json;

    @Spec CommandSpec spec = CommandSpec.create();

    @Override
    public Integer call() {
      SnapshotFile.Header h = load(file).header();
      new Output(spec.commandLine().getOut(), spec.commandLine().getErr(), json)
          .result(
              file
                  + ": "
                  + count(h.semaphores(), "semaphore")
                  + ", "
                  + count(h.sessions(), "session")
                  + ", "
                  + count(h.fileBytes(), "byte")
                  + ", "
                  + position(h)
                  + ", revision "
                  + h.revision()
                  + ", taken "
                  + Instant.ofEpochMilli(h.createdMillis()),
              describe(file, h));
      return ExitCodes.OK;
    }
  }
}
