package io.semafor.server;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;
import org.jspecify.annotations.Nullable;

/**
 * Which build of Semafor this is: the Maven project version and the git commit it was built from,
 * written into {@code io/semafor/server/build-info.properties} when semafor-server is built. Meant
 * for {@code semafor --version} and for a {@code semafor_build_info{version="...",commit="..."}}
 * metric.
 *
 * <p>Classes compiled without Maven (an IDE's own build) may lack the filtered file; then the
 * version is {@value #UNKNOWN}, as is the commit of a build made outside a git checkout or without
 * git.
 */
public final class BuildInfo {
  /** What {@link #version()} and {@link #commit()} give when the build did not record them. */
  public static final String UNKNOWN = "unknown";

  private static final String RESOURCE = "build-info.properties";

  private static final BuildInfo CURRENT = load();

  private final String version;
  private final String commit;

  private BuildInfo(String version, String commit) {
    this.version = version;
    this.commit = commit;
  }

  /** This build's project version, e.g. {@code 0.1.0} or {@code 0.1.0-SNAPSHOT}; never null. */
  public static String version() {
    return CURRENT.version;
  }

  /**
   * The abbreviated git commit this build was made from (12 hex digits), or {@value #UNKNOWN} if
   * the build did not know it; never null.
   */
  public static String commit() {
    return CURRENT.commit;
  }

  /**
   * The version and, when known, the commit, as one line: {@code 0.1.0-SNAPSHOT (commit
   * fd26783a1b2c)}, or just the version.
   */
  public static String describe() {
    return UNKNOWN.equals(commit()) ? version() : version() + " (commit " + commit() + ")";
  }

  private static BuildInfo load() {
    Properties properties = new Properties();
    try (InputStream in = BuildInfo.class.getResourceAsStream(RESOURCE)) {
      if (in != null) {
        properties.load(in);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("reading " + RESOURCE, e);
    }
    return new BuildInfo(
        recorded(properties.getProperty("version")), recorded(properties.getProperty("commit")));
  }

  /** A value the build wrote, or {@value #UNKNOWN} for none (absent, empty, or left unfiltered). */
  static String recorded(@Nullable String value) {
    if (value == null || value.isBlank() || value.contains("${")) {
      return UNKNOWN;
    }
    return value.strip();
  }
}
