package io.semafor.cli;

import io.semafor.Policy;
import io.semafor.SemaphoreOptions;
import io.semafor.client.SemaphoreInfo;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import picocli.CommandLine;

/** Small conversions shared by subcommands: policies, semop terms, and how things are shown. */
final class Parsing {
  private Parsing() {}

  static Policy policy(String text) {
    return switch (text.toLowerCase(Locale.ROOT)) {
      case "fifo" -> Policy.FIFO;
      case "barging" -> Policy.BARGING;
      default ->
          throw new CommandLine.TypeConversionException(
              "--policy: '" + text + "' is neither fifo nor barging");
    };
  }

  /** One {@code semop} term, {@code NAME:DELTA}. */
  record Term(String name, long delta) {}

  static Term term(String text) {
    int colon = text.lastIndexOf(':');
    if (colon <= 0 || colon == text.length() - 1) {
      throw new CommandLine.TypeConversionException(
          "'" + text + "' is not NAME:DELTA (like printers:-1, printers:+2 or printers:0)");
    }
    try {
      String delta = text.substring(colon + 1);
      return new Term(
          text.substring(0, colon),
          Long.parseLong(delta.startsWith("+") ? delta.substring(1) : delta));
    } catch (NumberFormatException e) {
      throw new CommandLine.TypeConversionException(
          "'" + text + "': the delta after ':' is not a whole number");
    }
  }

  static String describe(SemaphoreInfo info) {
    SemaphoreOptions o = info.options();
    StringBuilder b = new StringBuilder(info.name()).append(" = ").append(info.value());
    b.append(" (").append(o.policy().name().toLowerCase(Locale.ROOT));
    if (o.capacity() != 0) {
      b.append(", capacity ").append(o.capacity());
    }
    if (o.maxPerSession() != 0) {
      b.append(", at most ").append(o.maxPerSession()).append(" per session");
    }
    return b.append(')').toString();
  }

  static Map<String, Object> options(SemaphoreOptions o) {
    return Output.fields(
        "capacity", o.capacity(),
        "policy", o.policy().name().toLowerCase(Locale.ROOT),
        "maxPerSession", o.maxPerSession());
  }

  /** A duration for people: {@code 1.250s}, {@code 12ms}. */
  static String show(Duration d) {
    if (d.compareTo(Duration.ofSeconds(1)) < 0) {
      return d.toMillis() + "ms";
    }
    return String.format(Locale.ROOT, "%.3fs", d.toMillis() / 1000.0);
  }
}
