package io.semafor.server.security;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The auth file (docs/security.md#the-auth-file): the tokens that authenticate principals and the
 * rules that say what each principal may do under which name prefix. JSON, read with Jackson;
 * unknown keys are refused, so a misspelt setting is an error, not a silently open door.
 *
 * @param tokens the tokens, as {@code semafor auth token} prints their entries
 * @param rules who may do what where; a principal without a rule may do nothing
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record AuthFile(@Nullable List<TokenEntry> tokens, @Nullable List<Rule> rules) {
  private static final ObjectMapper JSON =
      new ObjectMapper().enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES);

  /**
   * What the file keeps of one token: never the token itself.
   *
   * @param principal who the token authenticates
   * @param id the token's id (its middle part), which finds this entry
   * @param salt random bytes hashed with the secret, base64url
   * @param sha256 SHA-256(salt ‖ secret), base64url
   * @param expires when the token stops working (ISO-8601 instant); null: never
   */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public record TokenEntry(
      String principal, String id, String salt, String sha256, @Nullable String expires) {}

  /**
   * A grant: {@code principal} may do {@code permissions} to every name starting with {@code
   * prefix}.
   *
   * @param principal a principal's name, or {@code *} for every authenticated principal
   * @param prefix the names it covers; empty covers every name
   * @param permissions {@code read}, {@code acquire}, {@code release}, {@code admin}, {@code
   *     cluster}
   */
  public record Rule(String principal, @Nullable String prefix, List<String> permissions) {}

  /** The file's contents could not be used; the message names the file and what is wrong. */
  public static final class Invalid extends Exception {
    private static final long serialVersionUID = 1L;

    Invalid(String message) {
      super(message);
    }
  }

  /**
   * Reads and checks {@code file}. Blocking (file I/O).
   *
   * @throws Invalid if it cannot be read, is not JSON of this shape, or names an unknown
   *     permission, an empty principal, a duplicate token id or an unparseable expiry
   */
  public static Access load(Path file) throws Invalid {
    AuthFile parsed;
    try {
      parsed = JSON.readValue(Files.readAllBytes(file), AuthFile.class);
    } catch (JacksonException e) {
      throw new Invalid(file + ": " + e.getOriginalMessage());
    } catch (IOException e) {
      throw new Invalid(file + ": cannot be read: " + e);
    }
    if (parsed == null) {
      throw new Invalid(file + ": empty");
    }
    try {
      return Access.of(parsed);
    } catch (IllegalArgumentException e) {
      throw new Invalid(file + ": " + e.getMessage());
    }
  }

  /** This file as JSON, indented, for {@code semafor auth} to print. */
  public String toJson() {
    try {
      return JSON.writerWithDefaultPrettyPrinter().writeValueAsString(this);
    } catch (JacksonException e) {
      throw new IllegalStateException("records of strings always serialise", e);
    }
  }

  /** {@code entry} as one JSON object, for {@code semafor auth token} to print. */
  public static String toJson(TokenEntry entry) {
    try {
      return JSON.writeValueAsString(entry);
    } catch (JacksonException e) {
      throw new IllegalStateException("records of strings always serialise", e);
    }
  }
}
