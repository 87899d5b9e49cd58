package io.semafor.server;

import com.sun.net.httpserver.HttpExchange;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * The console's page, script and style sheet, packaged in the jar and served as they are: no build
 * step and no library (decision 0042). Any other path is 404. Each response forbids scripts, styles
 * and connections from elsewhere (Content-Security-Policy) and framing. Thread-safe: the files are
 * read once, at start.
 */
final class ConsoleAssets {
  /** A file's type and bytes; never changed once loaded. */
  private static final class Asset {
    private final String type;
    private final byte[] bytes;

    Asset(String type, byte[] bytes) {
      this.type = type;
      this.bytes = bytes;
    }

    String type() {
      return type;
    }

    byte[] bytes() {
      return bytes;
    }
  }

  private static final Map<String, String> FILES =
      Map.of(
          "/", "index.html",
          "/index.html", "index.html",
          "/console.js", "console.js",
          "/console.css", "console.css");

  private final Map<String, Asset> assets;

  ConsoleAssets() {
    this.assets =
        Map.of(
            "index.html", load("index.html", "text/html; charset=utf-8"),
            "console.js", load("console.js", "text/javascript; charset=utf-8"),
            "console.css", load("console.css", "text/css; charset=utf-8"));
  }

  private static Asset load(String file, String type) {
    try (InputStream in = ConsoleAssets.class.getResourceAsStream("console/" + file)) {
      if (in == null) {
        throw new IllegalStateException("the console's " + file + " is missing from the jar");
      }
      return new Asset(type, in.readAllBytes());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Serves {@code GET} of a console file; anything else under {@code /} is 404 or 405. */
  void handle(HttpExchange exchange) throws IOException {
    try (exchange) {
      String file = FILES.get(exchange.getRequestURI().getPath());
      Asset asset = file == null ? null : assets.get(file);
      if (asset == null) {
        plain(exchange, 404, "not found: " + exchange.getRequestURI().getPath() + "\n");
        return;
      }
      if (!exchange.getRequestMethod().equals("GET")
          && !exchange.getRequestMethod().equals("HEAD")) {
        plain(exchange, 405, "GET only\n");
        return;
      }
      var headers = exchange.getResponseHeaders();
      headers.set("Content-Type", asset.type());
      headers.set("Cache-Control", "no-cache");
      headers.set(
          "Content-Security-Policy",
          "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'");
      headers.set("X-Content-Type-Options", "nosniff");
      if (exchange.getRequestMethod().equals("HEAD")) {
        exchange.sendResponseHeaders(200, -1);
        return;
      }
      exchange.sendResponseHeaders(200, asset.bytes().length);
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(asset.bytes());
      }
    }
  }

  private static void plain(HttpExchange exchange, int status, String body) throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", "text/plain; charset=utf-8");
    exchange.sendResponseHeaders(status, bytes.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(bytes);
    }
  }
}
