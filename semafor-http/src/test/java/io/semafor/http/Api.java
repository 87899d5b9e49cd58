package io.semafor.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.jspecify.annotations.Nullable;

/** A test's HTTP caller of the API: java.net.http with keep-alive, JSON in and out. */
final class Api {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** One answer: its status and JSON body (null node for an empty body). */
  record Answer(int status, JsonNode body, String raw) {
    String code() {
      return body.path("code").asText();
    }
  }

  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private final String base;
  private final String token;

  Api(String base, String token) {
    this.base = base;
    this.token = token;
  }

  Api(String base) {
    this(base, "");
  }

  Api as(String otherToken) {
    return new Api(base, otherToken);
  }

  Answer get(String path) {
    return send("GET", path, null);
  }

  Answer delete(String path) {
    return send("DELETE", path, null);
  }

  Answer put(String path, String json) {
    return send("PUT", path, json);
  }

  Answer post(String path, String json) {
    return send("POST", path, json);
  }

  Answer send(String method, String path, @Nullable String json) {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(URI.create(base + path))
            .timeout(Duration.ofSeconds(30))
            .method(
                method,
                json == null
                    ? HttpRequest.BodyPublishers.noBody()
                    : HttpRequest.BodyPublishers.ofString(json));
    if (!token.isEmpty()) {
      b.header("Authorization", "Bearer " + token);
    }
    if (json != null) {
      b.header("Content-Type", "application/json");
    }
    try {
      HttpResponse<String> r = http.send(b.build(), HttpResponse.BodyHandlers.ofString());
      String raw = r.body();
      JsonNode body = raw.isEmpty() ? JSON.nullNode() : JSON.readTree(raw);
      return new Answer(r.statusCode(), body, raw);
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
