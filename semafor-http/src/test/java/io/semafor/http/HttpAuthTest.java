package io.semafor.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.semafor.server.SemaforServer;
import io.semafor.server.ServerConfig;
import io.semafor.server.security.AuthFile;
import io.semafor.server.security.Security;
import io.semafor.server.security.Tokens;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Bearer tokens on a server with an auth file: the API admits and refuses exactly as the session
 * protocol does, since every request is made by its token's own session.
 */
class HttpAuthTest {
  static SemaforServer server;
  static HttpGateway gateway;
  static Api anonymous;
  static Api ops;
  static Api alice;

  @BeforeAll
  static void start() throws Exception {
    SecureRandom random = new SecureRandom();
    Tokens.Issued opsToken = Tokens.issue("ops", null, random);
    Tokens.Issued aliceToken = Tokens.issue("alice", null, random);
    Path auth = Files.createTempFile("semafor-http-auth", ".json");
    auth.toFile().deleteOnExit();
    Files.writeString(
        auth,
        new AuthFile(
                List.of(opsToken.entry(), aliceToken.entry()),
                List.of(
                    new AuthFile.Rule("ops", "", List.of("read", "admin", "acquire", "release")),
                    new AuthFile.Rule("alice", "jobs/", List.of("read", "acquire", "release"))))
            .toJson());
    server =
        SemaforServer.start(ServerConfig.builder().port(0).security(Security.of(auth)).build());
    gateway = HttpGateway.start(server, HttpConfig.DEFAULTS.withPort(0), null);
    anonymous = new Api(gateway.baseUrl());
    ops = anonymous.as(opsToken.token());
    alice = anonymous.as(aliceToken.token());
    assertThat(ops.put("/v1/semaphores/jobs%2Fa", "{\"initial\": 2}").status()).isEqualTo(201);
    assertThat(ops.put("/v1/semaphores/payroll", "{\"initial\": 1}").status()).isEqualTo(201);
  }

  @AfterAll
  static void stop() {
    gateway.close();
    server.close();
  }

  @Test
  void noTokenIs401WithAChallenge() {
    Api.Answer a = anonymous.get("/v1/semaphores/jobs%2Fa");
    assertThat(a.status()).isEqualTo(401);
    assertThat(a.code()).isEqualTo("UNAUTHENTICATED");
    assertThat(a.body().path("message").asText()).contains("Authorization: Bearer");
  }

  @Test
  void anUnknownTokenIs401FromTheServer() {
    Api.Answer a =
        anonymous
            .as("smf.AAAAAAAAAAAA.BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB")
            .get("/v1/semaphores/jobs%2Fa");
    assertThat(a.status()).isEqualTo(401);
    assertThat(a.code()).isEqualTo("UNAUTHENTICATED");
    assertThat(a.body().path("message").asText()).contains("token");
  }

  @Test
  void aValidTokenActsWithinItsRules() {
    Api.Answer lease = alice.post("/v1/semaphores/jobs%2Fa/leases", "{\"ttl_ms\": 30000}");
    assertThat(lease.status()).isEqualTo(200);
    assertThat(lease.body().path("granted").asBoolean()).isTrue();
    String id = lease.body().path("permit_id").asText();
    assertThat(
            alice.delete("/v1/leases/" + id + "?name=jobs%2Fa").body().path("released").asBoolean())
        .isTrue();
  }

  @Test
  void outsideItsRulesIs403AndChangesNothing() {
    Api.Answer lease = alice.post("/v1/semaphores/payroll/leases", "{\"ttl_ms\": 30000}");
    assertThat(lease.status()).isEqualTo(403);
    assertThat(lease.code()).isEqualTo("PERMISSION_DENIED");
    assertThat(lease.body().path("message").asText()).contains("acquire").contains("payroll");
    assertThat(alice.delete("/v1/semaphores/jobs%2Fa").status()).isEqualTo(403);
    assertThat(ops.get("/v1/semaphores/payroll").body().path("value").asLong()).isEqualTo(1);
    assertThat(ops.get("/v1/semaphores/jobs%2Fa").status()).isEqualTo(200);
  }

  @Test
  void aListShowsOnlyWhatThePrincipalMayRead() {
    Api.Answer list = alice.get("/v1/semaphores");
    assertThat(list.status()).isEqualTo(200);
    assertThat(list.body().path("semaphores")).hasSize(1);
    assertThat(list.body().path("semaphores").get(0).path("name").asText()).isEqualTo("jobs/a");
  }

  @Test
  void aWatchWithoutReadIs403() {
    Api.Answer watch = alice.get("/v1/semaphores/payroll/watch");
    assertThat(watch.status()).isEqualTo(403);
    assertThat(watch.code()).isEqualTo("PERMISSION_DENIED");
  }
}
