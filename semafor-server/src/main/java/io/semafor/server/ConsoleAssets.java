package io.semafor.server;

import io.semafor.server.http.Exchange;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
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
  void handle(Exchange exchange) {
    String file = FILES.get(exchange.path());
    Asset asset = file == null ? null : assets.get(file);
    if (asset == null) {
      plain(exchange, 404, "not found: " + exchange.path() + "\n");
      return;
    }
    boolean head = exchange.method().equals("HEAD");
    if (!exchange.method().equals("GET") && !head) {
      plain(exchange, 405, "GET only\n");
      return;
    }
    Map<String, String> headers = new LinkedHashMap<>();
    headers.put("Cache-Control", "no-cache");
    headers.put(
        "Content-Security-Policy",
        "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'");
    headers.put("X-Content-Type-Options", "nosniff");
    if (head) {
      headers.put("Content-Length", String.valueOf(asset.bytes().length));
    }
    exchange.respond(200, asset.type(), head ? new byte[0] : asset.bytes(), headers);
  }

  private static void plain(Exchange exchange, int status, String body) {
    exchange.respond(
        status, "text/plain; charset=utf-8", body.getBytes(StandardCharsets.UTF_8), Map.of());
  }
}
