package io.semafor.core;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;

/**
 * 128 bits that must not be guessed: the digest of a session's resume secret, or the entropy an id
 * key is made from. The edge draws them from a {@link SecureRandom}; the machine only stores and
 * compares them, so the same log still gives the same state. {@link #toString()} never shows them,
 * so they cannot leak into a log line.
 *
 * @param hi the first 64 bits
 * @param lo the last 64 bits
 */
public record Secret(long hi, long lo) {
  /** No secret: a session opened without one, a machine without an id key. */
  public static final Secret NONE = new Secret(0, 0);

  /** Whether this is {@link #NONE}. */
  public boolean isNone() {
    return hi == 0 && lo == 0;
  }

  /** 128 fresh bits from {@code random}, never {@link #NONE}. Thread-safe if {@code random} is. */
  public static Secret random(SecureRandom random) {
    while (true) {
      Secret s = new Secret(random.nextLong(), random.nextLong());
      if (!s.isNone()) {
        return s;
      }
    }
  }

  /**
   * The first 128 bits of the SHA-256 of {@code bytes}: what the machine keeps of a resume secret,
   * so that neither a snapshot nor a log holds the secret itself.
   */
  public static Secret digestOf(byte[] bytes) {
    byte[] d;
    try {
      d = MessageDigest.getInstance("SHA-256").digest(bytes);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java platform has SHA-256", e);
    }
    return new Secret(longAt(d, 0), longAt(d, 8));
  }

  /** These 128 bits, big-endian. */
  public byte[] bytes() {
    byte[] b = new byte[16];
    for (int i = 0; i < 8; i++) {
      b[i] = (byte) (hi >>> (56 - 8 * i));
      b[8 + i] = (byte) (lo >>> (56 - 8 * i));
    }
    return b;
  }

  /** Compares in time independent of where the two differ (a resume check must not leak). */
  public boolean matches(Secret other) {
    return MessageDigest.isEqual(bytes(), other.bytes());
  }

  private static long longAt(byte[] b, int from) {
    long v = 0;
    for (int i = 0; i < 8; i++) {
      v = (v << 8) | (b[from + i] & 0xff);
    }
    return v;
  }

  /** Never the bits: {@code Secret[none]} or {@code Secret[…]}. */
  @Override
  public String toString() {
    return isNone() ? "Secret[none]" : "Secret[…]";
  }
}
