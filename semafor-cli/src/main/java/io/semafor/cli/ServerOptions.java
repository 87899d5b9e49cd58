package io.semafor.cli;

import io.semafor.ErrorCode;
import io.semafor.client.SemaforClient;
import io.semafor.client.SemaforException;
import io.semafor.client.internal.TlsMismatch;
import io.semafor.server.options.CommandLines;
import io.semafor.server.options.Durations;
import java.time.Duration;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** The options every client subcommand takes: where the server is, and the output format. */
final class ServerOptions {
  @Option(
      names = "--server",
      paramLabel = "HOST:PORT",
      defaultValue = "${env:SEMAFOR_SERVER:-127.0.0.1:7400}",
      description =
          "The server (several separated by commas). Default: $SEMAFOR_SERVER, else"
              + " 127.0.0.1:7400.")
  String server = "127.0.0.1:7400";

  @Option(names = "--json", description = "Print one JSON object instead of text.")
  boolean json;

  @Mixin TokenOption credentials = new TokenOption();

  @Option(
      names = "--session-ttl",
      paramLabel = "D",
      defaultValue = "${env:SEMAFOR_SESSION_TTL:-10s}",
      converter = Durations.class,
      description =
          "How long the server keeps this command's session after it goes silent. Default:"
              + " $SEMAFOR_SESSION_TTL, else 10s.")
  Duration sessionTtl = Duration.ofSeconds(10);

  @Mixin TlsOptions tls = new TlsOptions();

  /**
   * Connects, giving up after a few seconds.
   *
   * @throws Unreachable if no server answers
   */
  SemaforClient connect() {
    try {
      SemaforClient.Builder builder =
          SemaforClient.builder()
              .addresses(server)
              .clientName("semafor-cli")
              .sessionTtl(sessionTtl)
              .connectTimeout(Duration.ofSeconds(3))
              .token(credentials.token());
      if (tls.enabled()) {
        builder.tls(tls.config());
      }
      return builder.connect();
    } catch (SemaforException e) {
      if (e.code() == ErrorCode.UNAVAILABLE) {
        throw new Unreachable(server, e);
      }
      throw e;
    } catch (IllegalArgumentException e) {
      throw new BadOption("--server: " + e.getMessage(), e);
    }
  }

  /** An option's value was refused once the command ran: exit status 2, one line. */
  static final class BadOption extends RuntimeException {
    private static final long serialVersionUID = 1L;

    BadOption(String message, @Nullable Throwable cause) {
      super(message, cause);
    }
  }

  /** No server could be reached: exit status 3. */
  static final class Unreachable extends RuntimeException {
    private static final long serialVersionUID = 1L;

    Unreachable(String server, Throwable cause) {
      super(message(server, cause), cause);
    }

    private static String message(String server, Throwable cause) {
      for (Throwable t = cause; t != null; t = t.getCause()) {
        if (t instanceof TlsMismatch mismatch) {
          return "cannot reach a Semafor server at "
              + mismatch.address()
              + ": "
              + (mismatch.serverSpeaksTls()
                  ? "it speaks TLS; pass --tls-ca FILE, the CA of its certificate (or set"
                      + " SEMAFOR_TLS_CA)"
                  : "it does not speak TLS; connect without --tls-ca, --tls-cert and --tls-key"
                      + " (nor SEMAFOR_TLS_*), or start it with --tls-cert and --tls-key");
        }
      }
      return "cannot reach a Semafor server at "
          + server
          + " ("
          + CommandLines.rootMessage(cause)
          + ")";
    }
  }
}
