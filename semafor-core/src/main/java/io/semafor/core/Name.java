package io.semafor.core;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A semaphore name: the exact bytes a client sent, compared byte for byte and never normalised
 * (docs/semantics.md#names: {@code ^Rem2("22")} and {@code ^Rem2(22)} are two semaphores).
 *
 * <p>A {@code Name} may hold bytes that are not a valid name (empty, too long, not UTF-8): names
 * travel as bytes so that the state machine, not the decoder, can refuse them with {@code
 * INVALID_ARGUMENT}. {@link #isValid(int)} says whether it is acceptable.
 *
 * <p>Immutable and thread-safe.
 */
public final class Name implements Comparable<Name> {
  private final byte[] bytes;
  private final int hash;

  private Name(byte[] bytes) {
    this.bytes = bytes;
    this.hash = hash(bytes);
  }

  /** The name whose bytes are the UTF-8 encoding of {@code text}. */
  public static Name of(String text) {
    return new Name(text.getBytes(StandardCharsets.UTF_8));
  }

  /** The name made of a copy of {@code bytes}, valid or not. */
  public static Name ofBytes(byte[] bytes) {
    return new Name(bytes.clone());
  }

  /** Wraps {@code bytes} without copying; the caller must never modify the array afterwards. */
  static Name wrap(byte[] bytes) {
    return new Name(bytes);
  }

  /** A copy of the bytes. */
  public byte[] toBytes() {
    return bytes.clone();
  }

  /** The number of bytes. */
  public int length() {
    return bytes.length;
  }

  /** The bytes themselves, for the engine's index; never modified. */
  byte[] bytes() {
    return bytes;
  }

  /** True if this is 1..{@code maxBytes} bytes of well-formed UTF-8. */
  public boolean isValid(int maxBytes) {
    return bytes.length >= 1 && bytes.length <= maxBytes && isUtf8(bytes);
  }

  /** True if the bytes start with {@code prefix}'s bytes. */
  public boolean startsWith(Name prefix) {
    return bytes.length >= prefix.bytes.length
        && Arrays.equals(bytes, 0, prefix.bytes.length, prefix.bytes, 0, prefix.bytes.length);
  }

  static boolean isUtf8(byte[] bytes) {
    try {
      StandardCharsets.UTF_8
          .newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(bytes));
      return true;
    } catch (CharacterCodingException e) {
      return false;
    }
  }

  /**
   * The hash the engine's index uses. String's polynomial hash spreads short ASCII names badly over
   * a power-of-two table, so the result goes through a murmur3 finaliser.
   */
  static int hash(byte[] bytes) {
    int h = 0x9747b28c;
    for (byte b : bytes) {
      h = 31 * h + b;
    }
    h ^= h >>> 16;
    h *= 0x85ebca6b;
    h ^= h >>> 13;
    h *= 0xc2b2ae35;
    h ^= h >>> 16;
    return h;
  }

  int hash() {
    return hash;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Name other && hash == other.hash && Arrays.equals(bytes, other.bytes);
  }

  @Override
  public int hashCode() {
    return hash;
  }

  /** Unsigned byte order, so that names sort as their UTF-8 text does by code point. */
  @Override
  public int compareTo(Name o) {
    return Arrays.compareUnsigned(bytes, o.bytes);
  }

  /**
   * The name as text for messages and logs: quoted, invalid bytes shown as {@code \xNN}, cut to 80
   * characters so a 1 KiB name cannot flood a log line.
   */
  @Override
  public String toString() {
    return quote(bytes);
  }

  static String quote(byte[] bytes) {
    // Invalid UTF-8 is shown byte by byte so the reader sees exactly what was sent.
    String text = isUtf8(bytes) ? new String(bytes, StandardCharsets.UTF_8) : null;
    int length = text != null ? text.length() : bytes.length;
    StringBuilder out = new StringBuilder(Math.min(length, 80) + 8).append('"');
    int i = 0;
    for (; i < length && i < 80; i++) {
      int c = text != null ? text.charAt(i) : bytes[i] & 0xff;
      if (c == '"' || c == '\\') {
        out.append('\\').append((char) c);
      } else if (c < 0x20 || (text == null && c >= 0x7f)) {
        out.append(String.format("\\x%02x", c));
      } else {
        out.append((char) c);
      }
    }
    if (i < length) {
      out.append("...");
    }
    return out.append('"').toString();
  }
}
