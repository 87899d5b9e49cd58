package io.semafor.server.options;

import java.time.Duration;
import java.util.Locale;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine;

/**
 * Parses the durations the commands take: {@code 500ms}, {@code 10s}, {@code 2m}, {@code 1h},
 * {@code 0}, and {@code forever} (null: no limit).
 */
public final class Durations implements CommandLine.ITypeConverter<Duration> {
  /**
   * What {@code forever} stands for when a Duration is needed: too long for nanoseconds, which the
   * client takes as "no limit".
   */
  public static final Duration FOREVER = Duration.ofSeconds(Long.MAX_VALUE);

  /** Creates the converter picocli instantiates for an option. */
  public Durations() {}

  /**
   * The duration {@code text} names; {@link #FOREVER} for {@code forever}.
   *
   * @throws CommandLine.TypeConversionException saying what is accepted
   */
  @Override
  public Duration convert(String text) {
    Duration d = parse(text);
    return d == null ? FOREVER : d;
  }

  /**
   * The duration {@code text} names, or null for {@code forever}.
   *
   * @throws CommandLine.TypeConversionException saying what is accepted
   */
  public static @Nullable Duration parse(String text) {
    String v = text.trim().toLowerCase(Locale.ROOT);
    if (v.equals("forever")) {
      return null;
    }
    if (v.equals("0")) {
      return Duration.ZERO;
    }
    try {
      if (v.endsWith("ms")) {
        return nonNegative(text, Duration.ofMillis(Long.parseLong(v.substring(0, v.length() - 2))));
      }
      long n = Long.parseLong(v.substring(0, v.length() - 1));
      return nonNegative(
          text,
          switch (v.charAt(v.length() - 1)) {
            case 's' -> Duration.ofSeconds(n);
            case 'm' -> Duration.ofMinutes(n);
            case 'h' -> Duration.ofHours(n);
            default -> throw bad(text);
          });
    } catch (NumberFormatException | StringIndexOutOfBoundsException | ArithmeticException e) {
      throw bad(text);
    }
  }

  /** {@code d} the way it is written on a command line: {@code 200ms}, {@code 10s}, {@code 2m}. */
  public static String format(Duration d) {
    if (isForever(d)) {
      return "forever";
    }
    long millis = d.toMillis();
    if (millis == 0 || millis % 1000 != 0) {
      return millis + "ms";
    }
    long seconds = millis / 1000;
    if (seconds % 3600 == 0) {
      return seconds / 3600 + "h";
    }
    return seconds % 60 == 0 ? seconds / 60 + "m" : seconds + "s";
  }

  /** Whether {@code d} is {@link #FOREVER}. */
  public static boolean isForever(Duration d) {
    return d.equals(FOREVER);
  }

  private static Duration nonNegative(String text, Duration d) {
    if (d.isNegative()) {
      throw bad(text);
    }
    return d;
  }

  private static CommandLine.TypeConversionException bad(String text) {
    return new CommandLine.TypeConversionException(
        "'" + text + "' is not a duration: write it like 500ms, 10s, 2m, 1h or forever");
  }
}
