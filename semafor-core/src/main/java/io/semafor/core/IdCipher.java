package io.semafor.core;

import java.security.GeneralSecurityException;
import javax.crypto.Cipher;
import javax.crypto.ShortBufferException;
import javax.crypto.spec.SecretKeySpec;

/**
 * Turns the machine's counters into ids that cannot be guessed (docs/security.md#ids): the id of
 * the {@code n}th session or lease is 63 bits of AES-128 of (its kind, {@code n}) under a key kept
 * in the replicated state. The kind keeps the two sequences apart: without it the {@code n}th
 * session and the {@code n}th lease would share an id, so one's own session ids would name someone
 * else's future leases. Every replica holds the same key, so the same log still gives the same ids;
 * without the key, knowing one's own ids says nothing about anyone else's. Distinct counters give
 * distinct AES blocks; the 63 bits kept can still collide, which the caller checks (a free id is
 * taken by skipping to the next counter), and are never 0, which means "none" on the wire.
 *
 * <p>Single-threaded, like the machine.
 */
final class IdCipher {
  private final Secret key;
  private final Cipher aes;
  private final byte[] in = new byte[16];
  private final byte[] out = new byte[16];

  IdCipher(Secret key) {
    this.key = key;
    try {
      aes = Cipher.getInstance("AES/ECB/NoPadding");
      aes.init(Cipher.ENCRYPT_MODE, new SecretKeySpec(key.bytes(), "AES"));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("every Java platform has AES/ECB/NoPadding", e);
    }
  }

  Secret key() {
    return key;
  }

  /** The block's first byte for session ids. */
  static final byte SESSIONS = 1;

  /** The block's first byte for lease (permit) ids. */
  static final byte LEASES = 2;

  /**
   * The id of kind {@code kind} for counter value {@code n}: positive, 63 bits; 0 only if the
   * cipher gave 0 (skip).
   */
  long id(byte kind, long n) {
    in[0] = kind;
    for (int i = 0; i < 8; i++) {
      in[8 + i] = (byte) (n >>> (56 - 8 * i));
    }
    try {
      aes.doFinal(in, 0, 16, out, 0);
    } catch (ShortBufferException
        | javax.crypto.IllegalBlockSizeException
        | javax.crypto.BadPaddingException e) {
      throw new IllegalStateException("one AES block into a block-sized buffer", e);
    }
    long v = 0;
    for (int i = 0; i < 8; i++) {
      v = (v << 8) | (out[i] & 0xff);
    }
    return v & Long.MAX_VALUE;
  }
}
