package io.semafor.server;

/** Which build of Semafor this is, for {@code semafor_build_info} and the logs. */
public final class BuildInfo {
  private BuildInfo() {}

  /**
   * The version in the server jar's manifest ({@code Implementation-Version}), or {@code "unknown"}
   * when running from classes without one (an IDE, the tests). The one place that knows where the
   * version comes from.
   */
  public static String version() {
    Package p = SemaforServer.class.getPackage();
    String v = p == null ? null : p.getImplementationVersion();
    return v == null || v.isBlank() ? "unknown" : v;
  }
}
