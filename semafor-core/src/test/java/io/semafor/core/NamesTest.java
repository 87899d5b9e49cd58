package io.semafor.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.semafor.ErrorCode;
import io.semafor.SemaphoreOptions;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** docs/semantics.md#names: names are 1..1024 bytes of UTF-8, compared byte for byte. */
class NamesTest {
  private final Harness h = new Harness();
  private final TestClient c = h.connect();

  private Result createBytes(byte[] name) {
    return c.call(new Operation.Create(Name.ofBytes(name), 1, SemaphoreOptions.DEFAULT));
  }

  @Test
  void namesThatDifferOnlyInQuotingAreTwoSemaphores() {
    c.create("^Rem2(\"22\")", 1);
    c.create("^Rem2(22)", 2);

    assertThat(h.value("^Rem2(\"22\")")).isEqualTo(1);
    assertThat(h.value("^Rem2(22)")).isEqualTo(2);
  }

  @Test
  void namesAreNotUnicodeNormalised() {
    c.create("caf\u00e9", 1); // precomposed é
    c.create("cafe\u0301", 2); // e + combining acute

    assertThat(h.value("caf\u00e9")).isEqualTo(1);
    assertThat(h.value("cafe\u0301")).isEqualTo(2);
  }

  @Test
  void anEmptyNameIsInvalid() {
    assertThat(createBytes(new byte[0]))
        .isEqualTo(failure(ErrorCode.INVALID_ARGUMENT, "name: must not be empty"));
  }

  @Test
  void aNameOf1024BytesIsAccepted() {
    byte[] name = new byte[1024];
    Arrays.fill(name, (byte) 'a');
    assertThat(createBytes(name)).isInstanceOf(Result.Created.class);
  }

  @Test
  void aNameOf1025BytesIsInvalidAndNamesTheLimit() {
    byte[] name = new byte[1025];
    Arrays.fill(name, (byte) 'a');
    assertThat(createBytes(name))
        .isEqualTo(
            failure(
                ErrorCode.INVALID_ARGUMENT, "name: is 1025 bytes, more than the limit of 1024"));
  }

  @Test
  void bytesThatAreNotUtf8AreInvalid() {
    Result result = createBytes(new byte[] {'a', (byte) 0xC3, 'b'});
    assertThat(result).isInstanceOf(Result.Failure.class);
    assertThat(((Result.Failure) result).code()).isEqualTo(ErrorCode.INVALID_ARGUMENT);
    assertThat(((Result.Failure) result).message()).startsWith("name: \"a\\xc3b\"");
  }

  @Test
  void anOverlongUtf8EncodingIsInvalid() {
    // 0xC0 0xAF is an overlong encoding of '/', forbidden by RFC 3629.
    assertThat(((Result.Failure) createBytes(new byte[] {(byte) 0xC0, (byte) 0xAF})).code())
        .isEqualTo(ErrorCode.INVALID_ARGUMENT);
  }

  @Test
  void anEncodedSurrogateIsInvalid() {
    assertThat(
            ((Result.Failure) createBytes(new byte[] {(byte) 0xED, (byte) 0xA0, (byte) 0x80}))
                .code())
        .isEqualTo(ErrorCode.INVALID_ARGUMENT);
  }

  @Test
  void anInvalidNameOnAnyOperationIsInvalidRatherThanNotFound() {
    Result result = c.call(new Operation.Increment(Name.ofBytes(new byte[] {(byte) 0xFF}), 1));
    assertThat(((Result.Failure) result).code()).isEqualTo(ErrorCode.INVALID_ARGUMENT);
  }

  @Test
  void aValidNameThatNamesNothingIsNotFound() {
    assertThat(c.increment("nobody", 1))
        .isEqualTo(failure(ErrorCode.NOT_FOUND, "name: no semaphore named \"nobody\" exists"));
  }

  static Result.Failure failure(ErrorCode code, String message) {
    return new Result.Failure(code, message);
  }
}
