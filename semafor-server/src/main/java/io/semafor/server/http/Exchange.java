package io.semafor.server.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.netty.handler.ssl.SslHandler;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import javax.net.ssl.SSLSession;
import org.jspecify.annotations.Nullable;

/**
 * One request and its one answer. A handler reads the request ({@link #param}, {@link #query},
 * {@link #body}, {@link #token}) and answers once, now or later and from any thread: {@link
 * #respond}, {@link #fail}, or {@link #events} for a stream. {@link #onClose} runs what must happen
 * when the caller goes away before its answer (a long poll withdraws its wait). Thread-safe.
 */
@SuppressWarnings("FutureReturnValueIgnored") // a failed write or close closes the channel
public final class Exchange {
  private final Channel channel;
  private final String method;
  private final String uri;
  private final HttpHeaders headers;
  private final byte[] body;
  private final Map<String, String> params;
  private final @Nullable Map<String, List<String>> query; // null: not valid percent-encoding
  private final boolean keepAlive;
  private final Runnable finished;
  private final Function<Throwable, ApiException> failures;
  private final AtomicBoolean answered = new AtomicBoolean();
  private final List<Runnable> closeListeners = new ArrayList<>();
  private boolean closed; // guarded by closeListeners

  Exchange(
      Channel channel,
      String method,
      String uri,
      HttpHeaders headers,
      byte[] body,
      Map<String, String> params,
      boolean keepAlive,
      Runnable finished,
      Function<Throwable, ApiException> failures) {
    this.channel = channel;
    this.method = method;
    this.uri = uri;
    this.headers = headers;
    this.body = body;
    this.params = new LinkedHashMap<>(params);
    this.query = parameters(uri);
    this.keepAlive = keepAlive;
    this.finished = finished;
    this.failures = failures;
  }

  /** The request's method. */
  public String method() {
    return method;
  }

  /**
   * The query's parameters; null if it is not valid percent-encoding (Netty's decoder throws, and a
   * request must still be answered: {@link #query} refuses it naming {@code query}).
   */
  private static @Nullable Map<String, List<String>> parameters(String uri) {
    try {
      return new QueryStringDecoder(uri).parameters();
    } catch (IllegalArgumentException e) {
      return null;
    }
  }

  private Map<String, List<String>> query() {
    if (query == null) {
      throw ApiException.invalid("query", "not valid percent-encoded UTF-8: " + rawQuery());
    }
    return query;
  }

  /** The request's path without its query, percent-decoded (as sent if it does not decode). */
  public String path() {
    try {
      return new QueryStringDecoder(uri).path();
    } catch (IllegalArgumentException e) {
      int q = uri.indexOf('?');
      return q < 0 ? uri : uri.substring(0, q);
    }
  }

  /** The request's query as sent (still percent-encoded), or null if it has none. */
  public @Nullable String rawQuery() {
    int q = uri.indexOf('?');
    return q < 0 ? null : uri.substring(q + 1);
  }

  /** The request's body as sent. */
  public byte[] bodyBytes() {
    return body.clone();
  }

  /** The caller's address. */
  public SocketAddress remoteAddress() {
    return channel.remoteAddress();
  }

  /** The TLS session of an HTTPS request (its client certificate, if any); null over HTTP. */
  public @Nullable SSLSession tlsSession() {
    SslHandler tls = channel.pipeline().get(SslHandler.class);
    return tls == null ? null : tls.engine().getSession();
  }

  /** A path parameter of the route ({@code name} of {@code /v1/semaphores/{name}}), decoded. */
  public String param(String name) {
    String v = params.get(name);
    if (v == null) {
      throw new IllegalStateException("the route has no parameter " + name);
    }
    return v;
  }

  /** A query parameter's (first) value, or null. */
  public @Nullable String query(String name) {
    List<String> values = query().get(name);
    return values == null || values.isEmpty() ? null : values.get(0);
  }

  /** The names of the query parameters given. */
  public java.util.Set<String> queryNames() {
    return query().keySet();
  }

  /** A request header, or null. */
  public @Nullable String header(CharSequence name) {
    return headers.get(name);
  }

  /** The JSON body, parsed. */
  public JsonBody body() {
    return JsonBody.parse(body);
  }

  /**
   * The bearer token of {@code Authorization: Bearer TOKEN}; "" when none is given (anonymous).
   *
   * @throws ApiException 401 if the header is there but is not a bearer token
   */
  public String token() {
    String auth = headers.get(HttpHeaderNames.AUTHORIZATION);
    if (auth == null || auth.isBlank()) {
      return "";
    }
    String[] parts = auth.strip().split("\\s+", 2);
    if (parts.length != 2 || !parts[0].equalsIgnoreCase("Bearer") || parts[1].isBlank()) {
      throw new ApiException(
          401,
          "UNAUTHENTICATED",
          "Authorization",
          "Authorization: not a bearer token; send Authorization: Bearer TOKEN");
    }
    return parts[1].strip();
  }

  /** Whether the caller's connection is still open. */
  public boolean isOpen() {
    return channel.isActive();
  }

  /**
   * Runs {@code listener} once if the connection closes before this exchange is answered (at once
   * if it already has).
   */
  public void onClose(Runnable listener) {
    boolean now;
    synchronized (closeListeners) {
      now = closed;
      if (!now) {
        closeListeners.add(listener);
      }
    }
    if (now) {
      listener.run();
    }
  }

  /** Called by the connection when it closes: runs the close listeners. */
  void connectionClosed() {
    List<Runnable> run;
    synchronized (closeListeners) {
      if (closed) {
        return;
      }
      closed = true;
      run = answered.get() ? List.of() : new ArrayList<>(closeListeners);
      closeListeners.clear();
    }
    run.forEach(Runnable::run);
  }

  /** Answers {@code status} with {@code json} as the body. */
  public void respond(int status, Object json) {
    respond(status, json, () -> {});
  }

  /**
   * Answers {@code status} with {@code json}; {@code undelivered} runs if the answer cannot reach
   * the caller (its connection closed first, or the write failed): a grant in it goes back there.
   */
  public void respond(int status, Object json, Runnable undelivered) {
    byte[] bytes;
    try {
      bytes = JsonBody.MAPPER.writeValueAsBytes(json);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot write " + json.getClass(), e);
    }
    write(status, bytes, "application/json", undelivered, Map.of(), true);
  }

  /**
   * Answers {@code status} with {@code body} of {@code contentType} and exactly the {@code headers}
   * given besides (no {@code Cache-Control} of its own; a {@code Content-Length} given stands, as
   * for the answer to a {@code HEAD}).
   */
  public void respond(int status, String contentType, byte[] body, Map<String, String> headers) {
    write(status, body, contentType, () -> {}, headers, false);
  }

  /** Answers with a resource's bytes ({@code application/json}). */
  public void respondRaw(int status, byte[] bytes, String contentType) {
    write(status, bytes, contentType, () -> {}, Map.of(), true);
  }

  /** Answers an {@link ApiException}, or any other failure as the server's failure mapping says. */
  public void fail(Throwable failure) {
    ApiException e = failures.apply(failure);
    Map<String, Object> json = new LinkedHashMap<>();
    json.put("code", e.code());
    json.put("argument", e.argument());
    json.put("message", e.getMessage());
    Map<String, String> extra = new LinkedHashMap<>();
    if (e.status() == 401) {
      extra.put(HttpHeaderNames.WWW_AUTHENTICATE.toString(), "Bearer realm=\"semafor\"");
    }
    byte[] bytes;
    try {
      bytes = JsonBody.MAPPER.writeValueAsBytes(json);
    } catch (JsonProcessingException ex) {
      throw new IllegalStateException(ex);
    }
    write(e.status(), bytes, "application/json", () -> {}, extra, true);
  }

  /** Answers 405 with the methods the path has. */
  public void wrongMethod(List<String> allowed) {
    fail(
        new ApiException(
            405,
            "INVALID_ARGUMENT",
            "method",
            "method: " + method + " is not allowed here; use " + String.join(" or ", allowed)));
  }

  private void write(
      int status,
      byte[] bytes,
      String type,
      Runnable undelivered,
      Map<String, String> extra,
      boolean noStore) {
    if (!answered.compareAndSet(false, true)) {
      throw new IllegalStateException("answered twice");
    }
    FullHttpResponse response =
        new DefaultFullHttpResponse(
            HttpVersion.HTTP_1_1,
            HttpResponseStatus.valueOf(status),
            Unpooled.wrappedBuffer(bytes));
    response.headers().set(HttpHeaderNames.CONTENT_TYPE, type);
    response.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, bytes.length);
    if (noStore) {
      response.headers().set(HttpHeaderNames.CACHE_CONTROL, HttpHeaderValues.NO_STORE);
    }
    extra.forEach(response.headers()::set);
    if (!keepAlive) {
      response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
    }
    if (!channel.isActive()) {
      response.release();
      undelivered.run();
      finished.run();
      return;
    }
    channel
        .writeAndFlush(response)
        .addListener(
            (ChannelFutureListener)
                f -> {
                  if (!f.isSuccess()) {
                    undelivered.run();
                    f.channel().close();
                  } else if (!keepAlive) {
                    f.channel().close();
                  }
                  finished.run();
                });
  }

  /**
   * Answers with an event stream (Server-Sent Events): the headers go now, events follow through
   * the returned stream until it or the connection closes.
   */
  public EventStream events(java.time.Duration keepAlive) {
    return events(keepAlive, Map.of());
  }

  /** {@link #events(java.time.Duration)}, with {@code headers} set over the stream's own. */
  public EventStream events(java.time.Duration keepAlive, Map<String, String> headers) {
    if (!answered.compareAndSet(false, true)) {
      throw new IllegalStateException("answered twice");
    }
    return EventStream.open(channel, keepAlive, headers, finished);
  }
}
