package io.semafor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class ErrorCodeTest {
  @Test
  void everyCodeIsFoundByItsNumber() {
    for (ErrorCode code : ErrorCode.values()) {
      assertThat(ErrorCode.ofNumber(code.number())).isSameAs(code);
    }
  }

  @Test
  void anUnknownNumberIsRefusedWhereTheReaderMustKnowIt() {
    assertThatThrownBy(() -> ErrorCode.ofNumber(13))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("13");
    assertThatThrownBy(() -> ErrorCode.ofNumber(0)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void anUnknownNumberFromANewerServerFallsBackToWhatTheClientSays() {
    assertThat(ErrorCode.ofNumber(99, ErrorCode.UNAVAILABLE)).isSameAs(ErrorCode.UNAVAILABLE);
    assertThat(ErrorCode.ofNumber(1, ErrorCode.UNAVAILABLE)).isSameAs(ErrorCode.NOT_FOUND);
  }
}
