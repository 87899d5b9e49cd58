package io.semafor.server.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The router alone: templates, percent-decoding, 404 and 405. */
class RouterTest {
  private static final Route.Handler NOTHING = e -> {};
  private final Router router =
      new Router(
          List.of(
              new Route("GET", "/v1/semaphores/{name}", "get", Set.of(200), NOTHING),
              new Route("PUT", "/v1/semaphores/{name}", "create", Set.of(200), NOTHING),
              new Route("POST", "/v1/semaphores/{name}/leases", "lease", Set.of(200), NOTHING),
              new Route("GET", "/v1/semaphores", "list", Set.of(200), NOTHING)));

  @Test
  void aTemplateCapturesOneDecodedSegment() {
    Router.Match m = router.match("POST", "/v1/semaphores/jobs%2Fprinters%20%C3%A9+1/leases");
    assertThat(m).isInstanceOf(Router.Found.class);
    Router.Found found = (Router.Found) m;
    assertThat(found.route().operationId()).isEqualTo("lease");
    assertThat(found.params()).isEqualTo(Map.of("name", "jobs/printers é+1"));
  }

  @Test
  void aPathWithOtherMethodsIsWrongMethodNamingThem() {
    assertThat(router.match("DELETE", "/v1/semaphores/a"))
        .isEqualTo(new Router.WrongMethod(List.of("GET", "PUT")));
  }

  @Test
  void anUnknownPathIsNoPath() {
    assertThat(router.match("GET", "/v1/nothing")).isInstanceOf(Router.NoPath.class);
    assertThat(router.match("GET", "/v1/semaphores/a/b")).isInstanceOf(Router.NoPath.class);
  }

  @Test
  void anEmptyParameterIsAnInvalidArgumentNamingIt() {
    assertThatThrownBy(() -> router.match("GET", "/v1/semaphores/"))
        .isInstanceOfSatisfying(
            ApiException.class,
            e -> {
              assertThat(e.code()).isEqualTo("INVALID_ARGUMENT");
              assertThat(e.argument()).isEqualTo("name");
            });
  }

  @Test
  void badPercentEncodingNamesTheParameter() {
    assertThatThrownBy(() -> router.match("GET", "/v1/semaphores/%E2%28"))
        .isInstanceOfSatisfying(
            ApiException.class, e -> assertThat(e.argument()).isEqualTo("name"));
    assertThatThrownBy(() -> router.match("GET", "/v1/semaphores/%zz"))
        .isInstanceOfSatisfying(
            ApiException.class, e -> assertThat(e.argument()).isEqualTo("name"));
  }

  @Test
  void aPrefixRouteTakesEveryPathItStartsAndTheFirstThatMatchesWins() {
    Router prefixes =
        new Router(
            List.of(
                new Route("*", "/cluster/members*", "members", Set.of(), NOTHING),
                new Route("*", "/cluster*", "cluster", Set.of(), NOTHING),
                new Route("GET", "/api/*", "api", Set.of(), NOTHING)));
    assertThat(operation(prefixes.match("DELETE", "/cluster/members/n2"))).isEqualTo("members");
    assertThat(operation(prefixes.match("POST", "/cluster"))).isEqualTo("cluster");
    assertThat(operation(prefixes.match("GET", "/clusterwide"))).isEqualTo("cluster");
    assertThat(operation(prefixes.match("GET", "/api/semaphores"))).isEqualTo("api");
    assertThat(prefixes.match("PUT", "/api/semaphores"))
        .isEqualTo(new Router.WrongMethod(List.of("GET")));
    assertThat(prefixes.match("GET", "/metrics")).isInstanceOf(Router.NoPath.class);
  }

  private static String operation(Router.Match m) {
    assertThat(m).isInstanceOf(Router.Found.class);
    return ((Router.Found) m).route().operationId();
  }
}
