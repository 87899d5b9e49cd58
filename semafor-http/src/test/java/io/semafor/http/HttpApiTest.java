package io.semafor.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.semafor.embedded.EmbeddedSemafor;
import io.semafor.server.ServerConfig;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Every route against a real server and gateway on 127.0.0.1, through java.net.http with keep-alive
 * connections; each test on names of its own.
 */
class HttpApiTest {
  static EmbeddedSemafor semafor;
  static HttpGateway gateway;
  static Api api;

  @BeforeAll
  static void start() throws InterruptedException {
    semafor = EmbeddedSemafor.start(ServerConfig.builder().port(0));
    gateway = HttpGateway.start(semafor.server(), HttpConfig.DEFAULTS.withPort(0), null);
    api = new Api(gateway.baseUrl());
  }

  @AfterAll
  static void stop() {
    gateway.close();
    semafor.close();
  }

  private static long value(String name) {
    return api.get("/v1/semaphores/" + name).body().path("value").asLong();
  }

  @Test
  void aLeaseIsAcquiredRenewedAndReleased() {
    assertThat(api.put("/v1/semaphores/lease-a", "{\"initial\": 2}").status()).isEqualTo(201);
    Api.Answer lease =
        api.post("/v1/semaphores/lease-a/leases", "{\"amount\": 1, \"ttl_ms\": 30000}");
    assertThat(lease.status()).isEqualTo(200);
    assertThat(lease.body().path("granted").asBoolean()).isTrue();
    assertThat(lease.body().path("token").asLong()).isPositive();
    assertThat(lease.body().path("expires_in_ms").asLong()).isEqualTo(30_000);
    String id = lease.body().path("permit_id").asText();
    assertThat(value("lease-a")).isEqualTo(1);
    Api.Answer renewed = api.put("/v1/leases/" + id, "{\"name\": \"lease-a\", \"ttl_ms\": 60000}");
    assertThat(renewed.status()).isEqualTo(200);
    assertThat(renewed.body().path("expires_in_ms").asLong()).isBetween(59_000L, 60_000L);
    Api.Answer released = api.delete("/v1/leases/" + id + "?name=lease-a");
    assertThat(released.body().path("released").asBoolean()).isTrue();
    assertThat(api.delete("/v1/leases/" + id + "?name=lease-a").body().path("released").asBoolean())
        .isFalse();
    assertThat(value("lease-a")).isEqualTo(2);
  }

  @Test
  void aLeaseThatCannotBeHadInTimeAnswersNotGranted() {
    api.put("/v1/semaphores/lease-b", "{\"initial\": 0}");
    long before = System.nanoTime();
    Api.Answer lease =
        api.post("/v1/semaphores/lease-b/leases", "{\"ttl_ms\": 1000, \"timeout_ms\": 200}");
    assertThat(System.nanoTime() - before).isGreaterThanOrEqualTo(200_000_000L);
    assertThat(lease.status()).isEqualTo(200);
    assertThat(lease.body().path("granted").asBoolean()).isFalse();
    assertThat(lease.body().has("permit_id")).isFalse();
  }

  @Test
  void aLongPollIsGrantedWhenAnotherCallerIncrements() throws Exception {
    api.put("/v1/semaphores/lease-c", "{\"initial\": 0}");
    var waiting =
        java.util.concurrent.CompletableFuture.supplyAsync(
            () ->
                api.post(
                    "/v1/semaphores/lease-c/leases", "{\"ttl_ms\": 5000, \"timeout_ms\": 20000}"));
    org.awaitility.Awaitility.await()
        .atMost(java.time.Duration.ofSeconds(10))
        .until(() -> api.get("/v1/semaphores/lease-c").body().path("waiters").asInt() == 1);
    assertThat(api.post("/v1/semaphores/lease-c/increment", "{\"amount\": 1}").status())
        .isEqualTo(200);
    Api.Answer lease = waiting.get(10, java.util.concurrent.TimeUnit.SECONDS);
    assertThat(lease.body().path("granted").asBoolean()).isTrue();
    assertThat(api.get("/v1/semaphores/lease-c").body().path("leased").asLong()).isEqualTo(1);
  }

  @Test
  void createAnswers201ThenOpensUnchangedWith200() {
    Api.Answer first =
        api.put(
            "/v1/semaphores/create-a",
            "{\"initial\": 3, \"capacity\": 5, \"policy\": \"barging\", \"max_per_session\": 2}");
    assertThat(first.status()).isEqualTo(201);
    assertThat(first.body().path("created").asBoolean()).isTrue();
    assertThat(first.body().path("capacity").asLong()).isEqualTo(5);
    assertThat(first.body().path("policy").asText()).isEqualTo("BARGING");
    Api.Answer again = api.put("/v1/semaphores/create-a", "{\"initial\": 1}");
    assertThat(again.status()).isEqualTo(200);
    assertThat(again.body().path("created").asBoolean()).isFalse();
    assertThat(again.body().path("value").asLong()).isEqualTo(3);
  }

  @Test
  void getAnswersTheStatusAnd404ForAnUnknownName() {
    api.put("/v1/semaphores/get-a", "{\"initial\": 4}");
    Api.Answer got = api.get("/v1/semaphores/get-a");
    assertThat(got.status()).isEqualTo(200);
    assertThat(got.body().path("name").asText()).isEqualTo("get-a");
    assertThat(got.body().path("value").asLong()).isEqualTo(4);
    assertThat(got.body().path("revision").asLong()).isPositive();
    Api.Answer missing = api.get("/v1/semaphores/no-such");
    assertThat(missing.status()).isEqualTo(404);
    assertThat(missing.code()).isEqualTo("NOT_FOUND");
  }

  @Test
  void namesArePercentEncodedUtf8() {
    Api.Answer created = api.put("/v1/semaphores/jobs%2Fdrucker%C3%A9", "{\"initial\": 1}");
    assertThat(created.status()).isEqualTo(201);
    assertThat(created.body().path("name").asText()).isEqualTo("jobs/druckeré");
    Api.Answer bad = api.get("/v1/semaphores/%FF%FE");
    assertThat(bad.status()).isEqualTo(400);
    assertThat(bad.body().path("argument").asText()).isEqualTo("name");
  }

  @Test
  void deleteRemovesAndASecondDeleteIs404() {
    api.put("/v1/semaphores/delete-a", "{\"initial\": 1}");
    assertThat(api.delete("/v1/semaphores/delete-a").status()).isEqualTo(200);
    assertThat(api.get("/v1/semaphores/delete-a").status()).isEqualTo(404);
    assertThat(api.delete("/v1/semaphores/delete-a").status()).isEqualTo(404);
  }

  @Test
  void aLongPollOnADeletedSemaphoreIs410() throws Exception {
    api.put("/v1/semaphores/delete-b", "{\"initial\": 0}");
    var waiting =
        java.util.concurrent.CompletableFuture.supplyAsync(
            () -> api.post("/v1/semaphores/delete-b/decrement", "{\"timeout_ms\": 20000}"));
    org.awaitility.Awaitility.await()
        .atMost(java.time.Duration.ofSeconds(10))
        .until(() -> api.get("/v1/semaphores/delete-b").body().path("waiters").asInt() == 1);
    api.delete("/v1/semaphores/delete-b");
    Api.Answer answer = waiting.get(10, java.util.concurrent.TimeUnit.SECONDS);
    assertThat(answer.status()).isEqualTo(410);
    assertThat(answer.code()).isEqualTo("DELETED");
  }

  @Test
  void setIncrementAndDecrementAreConsumed() {
    api.put("/v1/semaphores/count-a", "{\"initial\": 1, \"capacity\": 10}");
    Api.Answer set = api.put("/v1/semaphores/count-a/value", "{\"value\": 5}");
    assertThat(set.body().path("previous").asLong()).isEqualTo(1);
    assertThat(
            api.post("/v1/semaphores/count-a/increment", "{\"amount\": 2}")
                .body()
                .path("value")
                .asLong())
        .isEqualTo(7);
    Api.Answer dec =
        api.post("/v1/semaphores/count-a/decrement", "{\"amount\": 9, \"timeout_ms\": 0}");
    assertThat(dec.body().path("amount").asLong()).isEqualTo(7); // IRIS partial
    assertThat(dec.body().path("granted").asBoolean()).isTrue();
    assertThat(value("count-a")).isZero();
    Api.Answer none = api.post("/v1/semaphores/count-a/decrement", "{}");
    assertThat(none.body().path("amount").asLong()).isZero();
    assertThat(none.body().path("granted").asBoolean()).isFalse();
    Api.Answer over = api.post("/v1/semaphores/count-a/increment", "{\"amount\": 11}");
    assertThat(over.status()).isEqualTo(409);
    assertThat(over.code()).isEqualTo("OVERFLOW");
    assertThat(value("count-a")).isZero();
  }

  @Test
  void listPagesByName() {
    for (String n : List.of("list/a", "list/b", "list/c")) {
      api.put("/v1/semaphores/" + n.replace("/", "%2F"), "{\"initial\": 1}");
    }
    Api.Answer first = api.get("/v1/semaphores?prefix=list/&limit=2");
    assertThat(first.status()).isEqualTo(200);
    List<String> names = new ArrayList<>();
    first.body().path("semaphores").forEach(s -> names.add(s.path("name").asText()));
    assertThat(names).containsExactly("list/a", "list/b");
    assertThat(first.body().path("more").asBoolean()).isTrue();
    Api.Answer rest =
        api.get(
            "/v1/semaphores?prefix=list/&limit=2&after="
                + first.body().path("next_after").asText());
    assertThat(rest.body().path("semaphores").get(0).path("name").asText()).isEqualTo("list/c");
    assertThat(rest.body().path("more").asBoolean()).isFalse();
    assertThat(api.get("/v1/semaphores?limit=0").body().path("argument").asText())
        .isEqualTo("limit");
  }

  @Test
  void inspectShowsTheLeases() {
    api.put("/v1/semaphores/inspect-a", "{\"initial\": 2, \"capacity\": 2}");
    String id =
        api.post("/v1/semaphores/inspect-a/leases", "{\"ttl_ms\": 60000}")
            .body()
            .path("permit_id")
            .asText();
    Api.Answer detail = api.get("/v1/semaphores/inspect-a/inspect");
    assertThat(detail.status()).isEqualTo(200);
    assertThat(detail.body().path("status").path("leased").asLong()).isEqualTo(1);
    assertThat(detail.body().path("leases").get(0).path("permit_id").asText()).isEqualTo(id);
    assertThat(detail.body().path("leases").get(0).path("slots").get(0).asLong()).isEqualTo(1);
  }

  @Test
  void semopTakesSeveralAtOnceOrWouldBlock() {
    api.put("/v1/semaphores/semop-a", "{\"initial\": 1}");
    api.put("/v1/semaphores/semop-b", "{\"initial\": 0}");
    Api.Answer blocked =
        api.post(
            "/v1/semop",
            "{\"ops\": [{\"name\": \"semop-a\", \"delta\": -1}, {\"name\": \"semop-b\", \"delta\":"
                + " -1, \"no_wait\": true}]}");
    assertThat(blocked.status()).isEqualTo(409);
    assertThat(blocked.code()).isEqualTo("WOULD_BLOCK");
    assertThat(value("semop-a")).isEqualTo(1);
    Api.Answer done =
        api.post(
            "/v1/semop",
            "{\"ops\": [{\"name\": \"semop-a\", \"delta\": -1}, {\"name\": \"semop-b\", \"delta\":"
                + " 2}], \"timeout_ms\": 1000}");
    assertThat(done.body().path("done").asBoolean()).isTrue();
    assertThat(value("semop-a")).isZero();
    assertThat(value("semop-b")).isEqualTo(2);
  }

  @Test
  void badInputNamesTheFieldAndChangesNothing() {
    api.put("/v1/semaphores/bad-a", "{\"initial\": 3}");
    Api.Answer negative = api.post("/v1/semaphores/bad-a/increment", "{\"amount\": -3}");
    assertThat(negative.status()).isEqualTo(400);
    assertThat(negative.code()).isEqualTo("INVALID_ARGUMENT");
    assertThat(negative.body().path("argument").asText()).isEqualTo("amount");
    assertThat(negative.body().path("message").asText()).startsWith("amount:");
    assertThat(
            api.post("/v1/semaphores/bad-a/increment", "{\"amount\": 1")
                .body()
                .path("argument")
                .asText())
        .isEqualTo("body");
    assertThat(
            api.post("/v1/semaphores/bad-a/increment", "{\"amount\": \"1\"}")
                .body()
                .path("argument")
                .asText())
        .isEqualTo("amount");
    assertThat(api.post("/v1/semaphores/bad-a/increment", "{}").body().path("argument").asText())
        .isEqualTo("amount");
    assertThat(
            api.post("/v1/semaphores/bad-a/increment", "{\"amount\": 1, \"amonut\": 1}")
                .body()
                .path("argument")
                .asText())
        .isEqualTo("amonut");
    assertThat(
            api.post("/v1/semaphores/bad-a/leases", "{\"ttl_ms\": 0}")
                .body()
                .path("argument")
                .asText())
        .isEqualTo("ttl_ms");
    assertThat(
            api.post("/v1/semaphores/bad-a/leases", "{\"ttl_ms\": 10, \"timeout_ms\": -1}")
                .body()
                .path("argument")
                .asText())
        .isEqualTo("timeout_ms");
    assertThat(
            api.post(
                    "/v1/semop",
                    "{\"ops\": [{\"name\": \"bad-a\", \"delta\": -1, \"owned\": true}]}")
                .body()
                .path("argument")
                .asText())
        .isEqualTo("ops[0].owned");
    assertThat(api.post("/v1/semaphores/bad-a/increment", "[1]").body().path("argument").asText())
        .isEqualTo("body");
    assertThat(
            api.put("/v1/leases/abc", "{\"name\": \"bad-a\", \"ttl_ms\": 5}")
                .body()
                .path("argument")
                .asText())
        .isEqualTo("permit_id");
    assertThat(api.delete("/v1/leases/12").body().path("argument").asText()).isEqualTo("name");
    assertThat(value("bad-a")).isEqualTo(3);
    Api.Answer unknown = api.get("/v1/nothing");
    assertThat(unknown.status()).isEqualTo(404);
    assertThat(unknown.body().path("argument").asText()).isEqualTo("path");
    Api.Answer wrongMethod = api.post("/v1/semaphores/bad-a", "{}");
    assertThat(wrongMethod.status()).isEqualTo(405);
    assertThat(wrongMethod.raw()).doesNotContain("Exception").doesNotContain("\tat ");
  }

  @Test
  void aBodyOverTheLimitIs413AndChangesNothing() {
    api.put("/v1/semaphores/big-a", "{\"initial\": 3}");
    String big = "{\"amount\": 1, \"pad\": \"" + "x".repeat(70_000) + "\"}";
    Api.Answer answer = api.post("/v1/semaphores/big-a/increment", big);
    assertThat(answer.status()).isEqualTo(413);
    assertThat(answer.code()).isEqualTo("RESOURCE_EXHAUSTED");
    assertThat(value("big-a")).isEqualTo(3);
  }

  @Test
  void theOpenApiDocumentIsServed() {
    Api.Answer doc = api.get("/v1/openapi.json");
    assertThat(doc.status()).isEqualTo(200);
    assertThat(doc.body().path("openapi").asText()).startsWith("3.");
  }
}
