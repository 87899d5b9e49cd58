package io.semafor.server;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The build recorded its version (and, in a git checkout with git, its commit). */
class BuildInfoTest {
  @Test
  void theVersionIsTheProjectVersion() {
    assertThat(BuildInfo.version()).matches("\\d+\\.\\d+\\.\\d+.*");
  }

  @Test
  void theCommitIsTwelveHexDigitsOrUnknown() {
    assertThat(BuildInfo.commit()).matches("[0-9a-f]{12}|" + BuildInfo.UNKNOWN);
    assertThat(BuildInfo.describe()).startsWith(BuildInfo.version());
  }

  @Test
  void anUnfilteredOrMissingValueIsUnknown() {
    assertThat(BuildInfo.recorded("${project.version}")).isEqualTo(BuildInfo.UNKNOWN);
    assertThat(BuildInfo.recorded(null)).isEqualTo(BuildInfo.UNKNOWN);
    assertThat(BuildInfo.recorded(" ")).isEqualTo(BuildInfo.UNKNOWN);
    assertThat(BuildInfo.recorded("0.1.0\n")).isEqualTo("0.1.0");
  }
}
