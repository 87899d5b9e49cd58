package io.semafor.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** How {@code semafor} sizes the JVM's common fork-join pool before it starts (decision 0018). */
class CommonPoolTest {

  @Test
  void aTwoCoreMachineGetsAPoolOfTwo() {
    assertThat(Main.commonPoolParallelism(null, 2)).isEqualTo("2");
  }

  @Test
  void aOneCoreMachineGetsAPoolOfTwo() {
    assertThat(Main.commonPoolParallelism(null, 1)).isEqualTo("2");
  }

  @Test
  void aLargerMachineKeepsTheJvmDefault() {
    assertThat(Main.commonPoolParallelism(null, 3)).isNull();
  }

  @Test
  void anOperatorsOwnSettingIsKept() {
    assertThat(Main.commonPoolParallelism("1", 2)).isNull();
  }
}
