package io.semafor.client.internal;

import io.semafor.ErrorCode;
import io.semafor.client.SemaforException;
import io.semafor.protocol.v1.Failure;

/** Wire error codes to the client's. */
public final class ErrorCodes {
  private ErrorCodes() {}

  public static ErrorCode of(io.semafor.protocol.v1.ErrorCode code) {
    return ErrorCode.ofNumber(code.getNumber(), ErrorCode.UNAVAILABLE); // a newer server's code
  }

  public static SemaforException exception(Failure failure) {
    return new SemaforException(of(failure.getCode()), failure.getMessage());
  }
}
