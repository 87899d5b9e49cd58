package io.semafor.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Option;

/**
 * Where a command finds its bearer token (docs/security.md#tokens): {@code --token-file}, else
 * {@code $SEMAFOR_TOKEN}, else {@code $SEMAFOR_TOKEN_FILE}. Never an option holding the token
 * itself, which every user of the machine could read in the process list.
 */
final class TokenOption {
  @Option(
      names = "--token-file",
      paramLabel = "FILE",
      description =
          "Authenticate with the token in FILE (its first line). Default: $SEMAFOR_TOKEN (the"
              + " token itself), else the file $SEMAFOR_TOKEN_FILE names.")
  @Nullable Path tokenFile;

  /**
   * The token to send; empty if none is configured.
   *
   * @throws ServerOptions.BadOption if the token file cannot be read
   */
  String token() {
    Path file = tokenFile;
    if (file == null) {
      String inEnvironment = System.getenv("SEMAFOR_TOKEN");
      if (inEnvironment != null && !inEnvironment.isBlank()) {
        return inEnvironment.trim();
      }
      String named = System.getenv("SEMAFOR_TOKEN_FILE");
      if (named == null || named.isBlank()) {
        return "";
      }
      file = Path.of(named);
    }
    try {
      String text = Files.readString(file, StandardCharsets.UTF_8).strip();
      int end = text.indexOf('\n');
      return (end < 0 ? text : text.substring(0, end)).strip();
    } catch (IOException e) {
      throw new ServerOptions.BadOption(
          "--token-file " + file + ": cannot be read (" + e.getMessage() + ")", e);
    }
  }
}
