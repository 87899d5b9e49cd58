package io.semafor.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.semafor.embedded.EmbeddedSemafor;
import io.semafor.server.ServerConfig;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Every route against a real server and gateway on 127.0.0.1, through java.net.http. */
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

  @Test
  void aLeaseIsAcquiredRenewedAndReleased() {
    assertThat(api.put("/v1/semaphores/smoke", "{\"initial\": 2}").status()).isEqualTo(201);
    Api.Answer lease =
        api.post("/v1/semaphores/smoke/leases", "{\"amount\": 1, \"ttl_ms\": 30000}");
    assertThat(lease.status()).isEqualTo(200);
    assertThat(lease.body().path("granted").asBoolean()).isTrue();
    String id = lease.body().path("permit_id").asText();
    assertThat(api.get("/v1/semaphores/smoke").body().path("value").asLong()).isEqualTo(1);
    Api.Answer renewed = api.put("/v1/leases/" + id, "{\"name\": \"smoke\", \"ttl_ms\": 60000}");
    assertThat(renewed.status()).isEqualTo(200);
    Api.Answer released = api.delete("/v1/leases/" + id + "?name=smoke");
    assertThat(released.body().path("released").asBoolean()).isTrue();
    assertThat(api.get("/v1/semaphores/smoke").body().path("value").asLong()).isEqualTo(2);
  }
}
