package io.semafor.it;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A strict reader of the Prometheus text exposition format (version 0.0.4), enough to check a
 * scrape: every sample line must be {@code name{label="value",...} number}, and every sample's
 * metric family must have been declared by a {@code # TYPE} line. Throws on anything else.
 */
final class PrometheusText {
  /** One sample. */
  record Sample(String name, Map<String, String> labels, double value) {}

  private final Map<String, String> types = new LinkedHashMap<>();
  private final List<Sample> samples = new ArrayList<>();

  private PrometheusText() {}

  static PrometheusText parse(String text) {
    PrometheusText p = new PrometheusText();
    for (String line : text.split("\n", -1)) {
      if (line.isEmpty() || line.startsWith("# HELP ")) {
        continue;
      }
      if (line.startsWith("# TYPE ")) {
        String[] parts = line.substring(7).split(" ", -1);
        if (parts.length != 2) {
          throw new IllegalArgumentException("bad TYPE line: " + line);
        }
        p.types.put(parts[0], parts[1]);
        continue;
      }
      if (line.startsWith("#")) {
        continue;
      }
      p.samples.add(p.sample(line));
    }
    return p;
  }

  private Sample sample(String line) {
    int brace = line.indexOf('{');
    int space = line.lastIndexOf(' ');
    if (space < 0) {
      throw new IllegalArgumentException("no value: " + line);
    }
    String name = brace >= 0 && brace < space ? line.substring(0, brace) : line.substring(0, space);
    if (!name.matches("[a-zA-Z_:][a-zA-Z0-9_:]*")) {
      throw new IllegalArgumentException("bad metric name: " + line);
    }
    Map<String, String> labels = new LinkedHashMap<>();
    if (brace >= 0 && brace < space) {
      int close = line.lastIndexOf('}');
      String body = line.substring(brace + 1, close);
      for (String pair : body.isEmpty() ? new String[0] : body.split(",(?=[a-zA-Z_])", -1)) {
        int eq = pair.indexOf('=');
        if (eq < 0 || !pair.endsWith("\"") || pair.charAt(eq + 1) != '"') {
          throw new IllegalArgumentException("bad label in: " + line);
        }
        labels.put(pair.substring(0, eq), pair.substring(eq + 2, pair.length() - 1));
      }
    }
    String value = line.substring(space + 1);
    double v =
        switch (value) {
          case "+Inf" -> Double.POSITIVE_INFINITY;
          case "-Inf" -> Double.NEGATIVE_INFINITY;
          case "NaN" -> Double.NaN;
          default -> Double.parseDouble(value);
        };
    if (!declared(name)) {
      throw new IllegalArgumentException("sample of an undeclared family: " + line);
    }
    return new Sample(name, labels, v);
  }

  private boolean declared(String name) {
    for (String suffix : new String[] {"", "_total", "_count", "_sum", "_bucket", "_max"}) {
      if (name.endsWith(suffix)
          && types.containsKey(name.substring(0, name.length() - suffix.length()))) {
        return true;
      }
    }
    return false;
  }

  String type(String family) {
    return types.get(family);
  }

  /** The value of the sample with this name and these labels (a subset); fails if none. */
  double value(String name, String... labelPairs) {
    return samples.stream()
        .filter(s -> s.name().equals(name) && hasLabels(s, labelPairs))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no sample " + name + " " + List.of(labelPairs)))
        .value();
  }

  /**
   * The sum of every sample with this name and these labels: one figure for a family split by a
   * label the caller does not name (the JVM's memory pools: any one of them may be empty).
   */
  double sum(String name, String... labelPairs) {
    return samples.stream()
        .filter(s -> s.name().equals(name) && hasLabels(s, labelPairs))
        .mapToDouble(Sample::value)
        .sum();
  }

  boolean has(String name, String... labelPairs) {
    return samples.stream().anyMatch(s -> s.name().equals(name) && hasLabels(s, labelPairs));
  }

  List<Sample> samples() {
    return samples;
  }

  private static boolean hasLabels(Sample s, String... pairs) {
    for (int i = 0; i + 1 < pairs.length; i += 2) {
      if (!pairs[i + 1].equals(s.labels().get(pairs[i]))) {
        return false;
      }
    }
    return true;
  }
}
