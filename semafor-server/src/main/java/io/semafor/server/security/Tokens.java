package io.semafor.server.security;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.time.Instant;
import java.util.Base64;
import org.jspecify.annotations.Nullable;

/**
 * Bearer tokens and what the auth file keeps of them (docs/security.md#tokens). A token is {@code
 * smf.ID.SECRET}: ID (9 random bytes) finds its entry at once, SECRET (24 random bytes, 192 bits)
 * proves it. The file keeps ID, a random salt and SHA-256(salt ‖ SECRET), never the token: 192
 * random bits cannot be searched, so a slow password hash would only slow every {@code Hello}.
 * Stateless and thread-safe.
 */
public final class Tokens {
  static final String PREFIX = "smf.";
  private static final Base64.Encoder B64 = Base64.getUrlEncoder().withoutPadding();
  private static final Base64.Decoder B64_IN = Base64.getUrlDecoder();

  private Tokens() {}

  /**
   * A new token for {@code principal}, and the auth-file entry that admits it.
   *
   * @param token the token to hand to the client, shown once
   * @param entry the entry to add to the auth file's token list
   */
  public record Issued(String token, AuthFile.TokenEntry entry) {}

  /** Issues a token for {@code principal}, valid until {@code expires} (null: no end). */
  public static Issued issue(String principal, @Nullable Instant expires, SecureRandom random) {
    byte[] id = new byte[9];
    byte[] secret = new byte[24];
    byte[] salt = new byte[16];
    random.nextBytes(id);
    random.nextBytes(secret);
    random.nextBytes(salt);
    String idText = B64.encodeToString(id);
    String secretText = B64.encodeToString(secret);
    AuthFile.TokenEntry entry =
        new AuthFile.TokenEntry(
            principal,
            idText,
            B64.encodeToString(salt),
            B64.encodeToString(digest(salt, secretText)),
            expires == null ? null : expires.toString());
    return new Issued(PREFIX + idText + "." + secretText, entry);
  }

  /** A token split into its id and secret; null if it does not have the token's shape. */
  record Parsed(String id, String secret) {}

  static @Nullable Parsed parse(String token) {
    if (!token.startsWith(PREFIX)) {
      return null;
    }
    int dot = token.indexOf('.', PREFIX.length());
    if (dot < 0 || dot == token.length() - 1) {
      return null;
    }
    return new Parsed(token.substring(PREFIX.length(), dot), token.substring(dot + 1));
  }

  /** Whether {@code secret} is the one {@code entry} was issued with; constant time. */
  static boolean matches(AuthFile.TokenEntry entry, String secret) {
    byte[] expected;
    byte[] salt;
    try {
      expected = B64_IN.decode(entry.sha256());
      salt = B64_IN.decode(entry.salt());
    } catch (IllegalArgumentException badEntry) {
      return false;
    }
    return MessageDigest.isEqual(expected, digest(salt, secret));
  }

  private static byte[] digest(byte[] salt, String secret) {
    try {
      MessageDigest sha = MessageDigest.getInstance("SHA-256");
      sha.update(salt);
      sha.update(secret.getBytes(StandardCharsets.UTF_8));
      return sha.digest();
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java platform has SHA-256", e);
    }
  }
}
