package io.semafor.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.semafor.ErrorCode;
import io.semafor.client.SemaforException;
import io.semafor.server.http.ApiException;
import io.semafor.server.http.JsonBody;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** Bodies read field by field, and errors mapped to statuses and JSON argument names. */
class JsonMappingTest {
  private static JsonBody body(String json) {
    return JsonBody.parse(json.getBytes(StandardCharsets.UTF_8));
  }

  private static String argumentOf(Runnable r) {
    try {
      r.run();
    } catch (ApiException e) {
      assertThat(e.status()).isEqualTo(400);
      assertThat(e.getMessage()).startsWith(e.argument() + ":");
      return String.valueOf(e.argument());
    }
    throw new AssertionError("not refused");
  }

  @Test
  void fieldsAreTypedAndRequiredOnesNamed() {
    JsonBody b = body("{\"amount\": 3, \"name\": \"a\", \"no_wait\": true}");
    assertThat(b.requireLong("amount")).isEqualTo(3);
    assertThat(b.requireString("name")).isEqualTo("a");
    assertThat(b.booleanOr("no_wait", false)).isTrue();
    assertThat(b.longOr("timeout_ms", 0)).isZero();
    b.done();
    assertThat(argumentOf(() -> body("{}").requireLong("ttl_ms"))).isEqualTo("ttl_ms");
    assertThat(argumentOf(() -> body("{\"amount\": 1.5}").requireLong("amount")))
        .isEqualTo("amount");
    assertThat(argumentOf(() -> body("{\"amount\": 99999999999999999999}").requireLong("amount")))
        .isEqualTo("amount");
    assertThat(argumentOf(() -> body("{\"name\": 3}").requireString("name"))).isEqualTo("name");
  }

  @Test
  void unknownFieldsAndNonObjectsAreRefused() {
    JsonBody b = body("{\"amount\": 1, \"colour\": \"red\"}");
    b.requireLong("amount");
    assertThat(argumentOf(b::done)).isEqualTo("colour");
    assertThat(argumentOf(() -> body("[1, 2]"))).isEqualTo("body");
    assertThat(argumentOf(() -> body("{\"a\": 1,"))).isEqualTo("body");
    assertThat(argumentOf(() -> body("{\"a\": 1, \"a\": 2}"))).isEqualTo("body");
  }

  @Test
  void nestedFieldsAreNamedWithTheirIndex() {
    JsonBody b = body("{\"ops\": [{\"name\": \"a\", \"delta\": -1}, {\"name\": \"b\"}]}");
    var ops = b.requireObjects("ops");
    ops.get(0).requireLong("delta");
    assertThat(argumentOf(() -> ops.get(1).requireLong("delta"))).isEqualTo("ops[1].delta");
  }

  @Test
  void errorCodesMapToStatusesAndServerArgumentsToJsonNames() {
    assertThat(Errors.status(ErrorCode.NOT_FOUND)).isEqualTo(404);
    assertThat(Errors.status(ErrorCode.OVERFLOW)).isEqualTo(409);
    assertThat(Errors.status(ErrorCode.DELETED)).isEqualTo(410);
    assertThat(Errors.status(ErrorCode.RESOURCE_EXHAUSTED)).isEqualTo(429);
    assertThat(Errors.status(ErrorCode.UNAVAILABLE)).isEqualTo(503);
    ApiException e =
        Errors.of(new SemaforException(ErrorCode.INVALID_ARGUMENT, "leaseTtl: must be > 0, was 0"));
    assertThat(e.status()).isEqualTo(400);
    assertThat(e.argument()).isEqualTo("ttl_ms");
    assertThat(e.getMessage()).isEqualTo("leaseTtl: must be > 0, was 0");
    assertThat(Errors.argument("ops[2].maxPerSession: too many"))
        .isEqualTo("ops[2].max_per_session");
    assertThat(Errors.argument("permission 'acquire' on \"x\" is needed")).isNull();
    ApiException bug = Errors.of(new IllegalStateException("boom"));
    assertThat(bug.status()).isEqualTo(500);
  }
}
