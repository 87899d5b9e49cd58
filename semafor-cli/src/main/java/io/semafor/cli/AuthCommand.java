package io.semafor.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.semafor.server.options.Durations;
import io.semafor.server.security.AuthFile;
import io.semafor.server.security.Tokens;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.Callable;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code semafor auth token|reload}: issue tokens, and put an edited auth file in force. */
@Command(
    name = "auth",
    description = "Issue bearer tokens and reload the auth file (docs/security.md).",
    mixinStandardHelpOptions = true,
    subcommands = {AuthCommand.Token.class, AuthCommand.Reload.class})
final class AuthCommand {
  private static final ObjectMapper JSON = new ObjectMapper();

  @Command(
      name = "token",
      description = {
        "Issue a token for PRINCIPAL.",
        "Prints the token (line 1: give it to the client, it is shown only once) and the entry"
            + " to add to the auth file's \"tokens\" (line 2: a salted hash, never the token). With"
            + " --out FILE the token goes into FILE instead, readable by its owner only, and the"
            + " entry alone is printed. Runs locally; talks to no server."
      },
      mixinStandardHelpOptions = true)
  static final class Token implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "PRINCIPAL", description = "Who the token is for.")
    String principal = "";

    @Option(
        names = "--expires-in",
        paramLabel = "D",
        converter = Durations.class,
        description = "Stop working this long from now (e.g. 90d). Default: never.")
    @Nullable Duration expiresIn;

    @Option(
        names = "--out",
        paramLabel = "FILE",
        description =
            "Write the token to FILE, created with mode 0600 (its owner may read it, no one"
                + " else), instead of printing it. An existing FILE is refused unless --force.")
    @Nullable Path out;

    @Option(
        names = "--force",
        description = "With --out: replace FILE if it exists (by a new file of mode 0600).")
    boolean force;

    @Option(names = "--json", description = "Print one JSON object instead of text.")
    boolean json;

    @Spec CommandSpec spec = CommandSpec.create();

    @Override
    public Integer call() {
      if (principal.isBlank()) {
        throw new ServerOptions.BadOption("PRINCIPAL: must not be blank", null);
      }
      Path file = out;
      if (force && file == null) {
        throw new ServerOptions.BadOption("--force: only with --out FILE", null);
      }
      if (file != null && !force && Files.exists(file, LinkOption.NOFOLLOW_LINKS)) {
        throw new ServerOptions.BadOption(
            "--out " + file + ": exists; pass --force to replace it", null);
      }
      Duration d = expiresIn;
      Instant expires = d == null ? null : Instant.now().plus(d);
      Tokens.Issued issued = Tokens.issue(principal, expires, new SecureRandom());
      Output output = new Output(spec.commandLine().getOut(), spec.commandLine().getErr(), json);
      String entry = AuthFile.toJson(issued.entry());
      if (file == null) {
        output.result(
            issued.token() + "\n" + entry,
            Output.fields("token", issued.token(), "entry", issued.entry()));
        return ExitCodes.OK;
      }
      try {
        SecretFiles.write(file, issued.token() + "\n", force);
      } catch (java.nio.file.FileAlreadyExistsException e) {
        throw new ServerOptions.BadOption(
            "--out " + file + ": exists; pass --force to replace it", e);
      } catch (IOException e) {
        throw new ServerOptions.BadOption("--out " + file + ": cannot write it: " + e, e);
      }
      output.result(entry, Output.fields("tokenFile", file.toString(), "entry", issued.entry()));
      return ExitCodes.OK;
    }
  }

  @Command(
      name = "reload",
      description = {
        "Make each node read its auth file again.",
        "POST /auth/reload on each admin port; needs the cluster permission. A file that does"
            + " not parse leaves that node's rules as they were. Connections whose token was"
            + " revoked or expired are closed; watches and waiting requests the new rules no"
            + " longer allow are ended. Exit 0 if every node reloaded, 1 if one refused, 3 if one"
            + " could not be reached."
      },
      mixinStandardHelpOptions = true)
  static final class Reload implements Callable<Integer> {
    @Option(
        names = "--admin",
        paramLabel = "HOST:PORT,...",
        defaultValue = "127.0.0.1:7401",
        description = "Each node's admin address (default ${DEFAULT-VALUE}).")
    String admin = "127.0.0.1:7401";

    @Mixin TokenOption credentials = new TokenOption();

    @Mixin TlsOptions tls = new TlsOptions();

    @Spec CommandSpec spec = CommandSpec.create();

    @Override
    public Integer call() throws InterruptedException {
      HttpClient http = ClusterCommand.http(tls);
      String token = credentials.token();
      int status = ExitCodes.OK;
      for (String address : admin.split(",", -1)) {
        String where = address.trim();
        HttpResponse<String> response;
        try {
          response =
              http.send(
                  ClusterCommand.authorized(
                          HttpRequest.newBuilder(
                              URI.create(
                                  ClusterCommand.scheme(tls) + "://" + where + "/auth/reload")),
                          token)
                      .POST(HttpRequest.BodyPublishers.noBody())
                      .timeout(Duration.ofSeconds(10))
                      .build(),
                  HttpResponse.BodyHandlers.ofString());
        } catch (IOException | IllegalArgumentException e) {
          spec.commandLine().getErr().println("semafor: UNAVAILABLE: " + where + ": " + e);
          status = Math.max(status, ExitCodes.UNREACHABLE);
          continue;
        }
        Map<?, ?> body;
        try {
          body = JSON.readValue(response.body(), Map.class);
        } catch (IOException e) {
          body = Map.of("error", "UNAVAILABLE", "message", response.body());
        }
        if (response.statusCode() == 200) {
          spec.commandLine().getOut().println(where + ": reloaded: " + body.get("reloaded"));
        } else {
          spec.commandLine()
              .getErr()
              .println("semafor: " + where + ": " + body.get("error") + ": " + body.get("message"));
          status = Math.max(status, ExitCodes.FAILED);
        }
      }
      spec.commandLine().getOut().flush();
      spec.commandLine().getErr().flush();
      return status;
    }
  }
}
