package io.semafor.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.semafor.embedded.EmbeddedSemafor;
import io.semafor.server.ServerConfig;
import io.semafor.server.http.Route;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * The OpenAPI document the server serves matches its router: every route is in it with its method,
 * operation id and statuses, and it has nothing the router has not.
 */
class OpenApiTest {
  private static final Set<String> METHODS = Set.of("get", "put", "post", "delete", "patch");

  @Test
  void theDocumentDescribesExactlyTheRoutes() throws Exception {
    try (EmbeddedSemafor semafor = EmbeddedSemafor.start(ServerConfig.builder().port(0));
        HttpGateway gateway =
            HttpGateway.start(semafor.server(), HttpConfig.DEFAULTS.withPort(0), null)) {
      JsonNode doc = new Api(gateway.baseUrl()).get("/v1/openapi.json").body();
      assertThat(doc.path("openapi").asText()).startsWith("3.");
      Set<String> documented = new TreeSet<>();
      for (var path : doc.path("paths").properties()) {
        for (var method : path.getValue().properties()) {
          if (METHODS.contains(method.getKey())) {
            documented.add(method.getKey().toUpperCase(Locale.ROOT) + " " + path.getKey());
          }
        }
      }
      Set<String> routed = new TreeSet<>();
      for (Route route : gateway.router().routes()) {
        String key = route.method() + " " + route.template();
        routed.add(key);
        JsonNode op =
            doc.path("paths").path(route.template()).path(route.method().toLowerCase(Locale.ROOT));
        assertThat(op.path("operationId").asText()).as(key).isEqualTo(route.operationId());
        Set<Integer> statuses = new TreeSet<>();
        op.path("responses").properties().forEach(s -> statuses.add(Integer.valueOf(s.getKey())));
        assertThat(statuses).as(key + " statuses").isEqualTo(new TreeSet<>(route.statuses()));
      }
      assertThat(documented).isEqualTo(routed);
    }
  }
}
