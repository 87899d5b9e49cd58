package io.semafor.server.http;

import io.netty.buffer.ByteBufUtil;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.timeout.IdleStateEvent;
import java.util.ArrayDeque;
import java.util.Map;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One HTTP connection: answers its requests one at a time, in order (a pipelined request waits for
 * the answer before it, at most {@link #MAX_QUEUED} of them), tells the exchange in flight when the
 * connection closes, and closes a connection idle with nothing in flight. Runs on the connection's
 * event loop; {@link Exchange}s answer from any thread and come back here through it.
 */
@SuppressWarnings("FutureReturnValueIgnored") // a failed write or close closes the channel
final class HttpConnection extends SimpleChannelInboundHandler<FullHttpRequest> {
  private static final Logger log = LoggerFactory.getLogger(HttpConnection.class);

  /** Pipelined requests held while one is answered; more close the connection. */
  static final int MAX_QUEUED = 16;

  private final Router router;
  private final Function<Throwable, ApiException> failures;
  private final ArrayDeque<FullHttpRequest> queued = new ArrayDeque<>();
  private @Nullable Exchange current;

  HttpConnection(Router router, Function<Throwable, ApiException> failures) {
    this.router = router;
    this.failures = failures;
  }

  @Override
  protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) {
    if (current != null) {
      if (queued.size() >= MAX_QUEUED) {
        ctx.close();
        return;
      }
      queued.add(request.retain());
      return;
    }
    start(ctx, request);
  }

  private void start(ChannelHandlerContext ctx, FullHttpRequest request) {
    boolean keepAlive = HttpUtil.isKeepAlive(request) && request.decoderResult().isSuccess();
    String uri = request.uri();
    int q = uri.indexOf('?');
    String path = q < 0 ? uri : uri.substring(0, q);
    Router.Match match;
    RuntimeException refused = null;
    try {
      match =
          request.decoderResult().isSuccess()
              ? router.match(request.method().name(), path)
              : new Router.NoPath();
    } catch (RuntimeException e) {
      match = new Router.NoPath();
      refused = e;
    }
    Exchange exchange =
        new Exchange(
            ctx.channel(),
            request.method().name(),
            uri,
            request.headers().copy(),
            ByteBufUtil.getBytes(request.content()),
            match instanceof Router.Found found ? found.params() : Map.of(),
            keepAlive,
            () -> ctx.executor().execute(() -> finished(ctx)),
            failures);
    current = exchange;
    if (!request.decoderResult().isSuccess()) {
      exchange.fail(ApiException.invalid("request", "not a valid HTTP/1.1 request"));
    } else if (refused != null) {
      exchange.fail(refused);
    } else if (match instanceof Router.Found found) {
      handle(found.route(), exchange);
    } else if (match instanceof Router.WrongMethod wrong) {
      exchange.wrongMethod(wrong.allowed());
    } else {
      exchange.fail(
          new ApiException(404, "NOT_FOUND", "path", "path: no route " + path + " (docs/http.md)"));
    }
  }

  private static void handle(Route route, Exchange exchange) {
    try {
      route.handler().handle(exchange);
    } catch (ApiException e) {
      exchange.fail(e);
    } catch (RuntimeException e) {
      log.warn("{} {} failed", exchange.method(), route.template(), e);
      exchange.fail(e);
    }
  }

  /** The exchange in flight was answered: the next queued request, if any, starts. */
  private void finished(ChannelHandlerContext ctx) {
    current = null;
    FullHttpRequest next = queued.poll();
    if (next != null) {
      try {
        if (ctx.channel().isActive()) {
          start(ctx, next);
        }
      } finally {
        next.release();
      }
    }
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    Exchange e = current;
    log.debug("connection {} closed with {} in flight", ctx.channel(), e);
    if (e != null) {
      e.connectionClosed();
    }
    for (FullHttpRequest r : queued) {
      r.release();
    }
    queued.clear();
    ctx.fireChannelInactive();
  }

  @Override
  public void userEventTriggered(ChannelHandlerContext ctx, Object event) {
    if (event instanceof IdleStateEvent && current == null) {
      ctx.close(); // idle with nothing in flight; a long poll or a stream is not idle
      return;
    }
    ctx.fireUserEventTriggered(event);
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    log.debug("http connection {}: {}", ctx.channel(), cause.toString());
    ctx.close();
  }
}
