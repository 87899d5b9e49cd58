package io.semafor.client;

import io.semafor.ErrorCode;
import io.semafor.SemaphoreOptions;
import io.semafor.client.internal.Link;
import io.semafor.client.internal.LinkConfig;
import io.semafor.client.internal.LocalHost;
import io.semafor.client.internal.Rpc;
import io.semafor.protocol.v1.ListNames;
import io.semafor.protocol.v1.Read;
import io.semafor.protocol.v1.Request;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;

/**
 * A connection to Semafor: one session, shared by every thread that uses this client.
 *
 * <pre>{@code
 * try (SemaforClient client = SemaforClient.connect("127.0.0.1:7400")) {
 *   NamedSemaphore printers = client.create("printers", 3);
 *   try (Permit permit = printers.acquirePermit(1)) {
 *     print(permit.slots());
 *   }
 * }
 * }</pre>
 *
 * <p>The session keeps what the client owns: if the process dies, its owned permits come back to
 * their semaphores once the session's TTL passes without a keep-alive. Keep-alives go out from a
 * background thread that never blocks callers. If the connection drops, the client reconnects (to
 * any of its addresses) and resumes the session: waiting requests keep their place, owned permits
 * stay owned, and requests are never applied twice. If the session ended meanwhile, pending
 * requests fail with {@link ErrorCode#SESSION_EXPIRED}, {@link #onSessionLost} listeners run, and a
 * new session is opened.
 *
 * <p>Every answer the client reads is acknowledged to the server within about a millisecond (on the
 * next request, or a keep-alive if none follows): until then what it granted counts as in transit
 * (docs/semantics.md#delivery), so it would go back if the session ended, and it counts against the
 * semaphore's capacity.
 *
 * <p>Thread-safe. {@link #close()} ends the session, so everything it owns goes back at once.
 */
public final class SemaforClient implements AutoCloseable {
  private final Link link;
  private final Rpc rpc;
  private final Listings listings;
  private final AtomicLong nextListId = new AtomicLong();

  private final Duration answerTimeout;

  private SemaforClient(Link link, Duration answerTimeout) {
    this.answerTimeout = answerTimeout;
    this.link = link;
    this.rpc = new Rpc(link, answerTimeout);
    this.listings = new Listings(rpc);
  }

  /**
   * Connects with the default settings to {@code addresses}: {@code "host:port"}, or several
   * separated by commas (tried in turn).
   *
   * @throws SemaforException UNAVAILABLE if no address can be reached
   */
  public static SemaforClient connect(String addresses) {
    return builder().addresses(addresses).connect();
  }

  /** A builder of clients. */
  public static Builder builder() {
    return new Builder();
  }

  /** A handle on the semaphore named {@code name} (no I/O). */
  public NamedSemaphore semaphore(String name) {
    return new NamedSemaphore(rpc, name);
  }

  /**
   * Creates {@code name} with {@code initial} permits, or opens it if it exists (IRIS), and returns
   * a handle.
   */
  public NamedSemaphore create(String name, long initial) {
    return create(name, initial, SemaphoreOptions.DEFAULT);
  }

  /** Creates {@code name} with options, or opens it if it exists, and returns a handle. */
  public NamedSemaphore create(String name, long initial, SemaphoreOptions options) {
    NamedSemaphore semaphore = semaphore(name);
    semaphore.create(initial, options);
    return semaphore;
  }

  /** The names that start with {@code prefix}, in byte order (all of them, page by page). */
  public List<String> list(String prefix) {
    return listings.names(prefix);
  }

  /**
   * {@link #list(String)} without blocking: the future completes with every name starting with
   * {@code prefix}, sorted, read page by page, on a client thread (do not block in its callbacks),
   * or exceptionally with a {@link SemaforException} (UNAVAILABLE if the client is closed or a page
   * is not answered in time). A read: cancelling the future stops it. Thread-safe.
   */
  public CompletableFuture<List<String>> listAsync(String prefix) {
    return listings.namesAsync(prefix);
  }

  /**
   * The semaphores whose names start with {@code prefix}, in byte order, each with its state
   * (value, options, counts of waiters, holders and leases; no queue or holder lists): what {@code
   * semafor list} prints. Reads page by page; each page is consistent, the whole list is not a
   * single snapshot when other clients change semaphores meanwhile. Blocks; thread-safe.
   *
   * @throws SemaforException as {@link #list} does
   */
  public List<SemaphoreInfo> listSemaphores(String prefix) {
    return listings.statuses(prefix);
  }

  /**
   * Watches the semaphore {@code name}: the server pushes its state, then every change (its value,
   * queue, holders and leases, with the revision that made it), over a connection of the watch's
   * own that follows the leader and resumes after a break (see {@link SemaphoreWatch}). Returns at
   * once; the listener is called on the watch's thread. A semaphore that does not exist yet is told
   * when it is created. Close the watch to stop it; closing the client does not.
   *
   * @throws IllegalArgumentException if {@code name} is empty
   */
  public SemaphoreWatch watch(String name, SemaphoreWatch.Listener listener) {
    return watch(name, false, listener);
  }

  /**
   * {@link #watch(String, SemaphoreWatch.Listener)}; with {@code summary}, each state is the status
   * alone (value, counts, options), without the waiters, holders and leases.
   *
   * @throws IllegalArgumentException if {@code name} is empty
   */
  public SemaphoreWatch watch(String name, boolean summary, SemaphoreWatch.Listener listener) {
    if (name.isEmpty()) {
      throw new IllegalArgumentException("name: empty (watchPrefix(\"\", ...) watches every name)");
    }
    return new SemaphoreWatch(link.config(), name, false, 0, summary, listener).start();
  }

  /**
   * Watches every semaphore whose name starts with {@code prefix} ("" for all), as {@link #watch}
   * does one; with {@code summary}, each state is its status alone (value, counts, options), which
   * is what an overview of many semaphores needs.
   */
  public SemaphoreWatch watchPrefix(
      String prefix, boolean summary, SemaphoreWatch.Listener listener) {
    return new SemaphoreWatch(link.config(), prefix, true, 0, summary, listener).start();
  }

  /**
   * One page of the semaphores whose names start with {@code prefix}: at most {@code limit}, each
   * with its state, those after {@code after} in byte order (null: from the first); {@code more}
   * says names follow (ask again with the last name as {@code after}). The server stops a page
   * earlier at its byte budget (docs/protocol.md §4). Does not block; thread-safe.
   *
   * @param limit 1 to 10,000, else the future fails with INVALID_ARGUMENT ({@code limit})
   */
  public CompletableFuture<ListPage> listPageAsync(
      String prefix, @Nullable String after, int limit) {
    ListNames.Builder page =
        ListNames.newBuilder()
            .setPrefix(com.google.protobuf.ByteString.copyFrom(prefix, StandardCharsets.UTF_8))
            .setLimit(limit)
            .setWithStatus(true);
    if (after != null) {
      page.setAfter(com.google.protobuf.ByteString.copyFrom(after, StandardCharsets.UTF_8))
          .setHasAfter(true);
    }
    return rpc.readAsync(Read.newBuilder().setListNames(page))
        .thenApply(read -> new ListPage(Infos.statuses(read), read.getNames().getMore()));
  }

  /** A page of {@link #listPageAsync}: the semaphores in byte order, and whether more follow. */
  public record ListPage(List<SemaphoreInfo> semaphores, boolean more) {
    /** Copies the list. */
    public ListPage {
      semaphores = List.copyOf(semaphores);
    }
  }

  /**
   * A watch of {@code name} (or with {@code prefix}, of every name starting with it) that resumes
   * after {@code afterRevision}, as a reconnecting watch does: each watched semaphore changed after
   * it comes once at its latest state, then {@link SemaphoreWatch.Synced}; a revision the server no
   * longer knows is answered by {@link SemaphoreWatch.Resynced} and every state. {@code
   * afterRevision} 0 starts afresh, as {@link #watch} does. The HTTP API's Server-Sent Events
   * resume from {@code Last-Event-ID} so (docs/http.md).
   *
   * @throws IllegalArgumentException if {@code afterRevision} is negative, or {@code name} is empty
   *     without {@code prefix}
   */
  public SemaphoreWatch watchAfter(
      String name,
      boolean prefix,
      boolean summary,
      long afterRevision,
      SemaphoreWatch.Listener listener) {
    if (!prefix && name.isEmpty()) {
      throw new IllegalArgumentException("name: empty (a prefix watch of \"\" watches every name)");
    }
    if (afterRevision < 0) {
      throw new IllegalArgumentException("afterRevision < 0: " + afterRevision);
    }
    return new SemaphoreWatch(link.config(), name, prefix, 0, summary, listener)
        .resumingAfter(afterRevision)
        .start();
  }

  /**
   * Every live session, in id order, with its client (name, host, PID), TTL, age and counts: what
   * {@code semafor session list} prints. Reads page by page. Blocks; thread-safe.
   *
   * @throws SemaforException UNAVAILABLE if no server answers in time
   */
  public List<SessionInfo> sessions() {
    return listings.sessions();
  }

  /**
   * Ends another session now, as its TTL passing would: its waiting requests fail with {@link
   * ErrorCode#SESSION_EXPIRED}, what it owned goes back to its semaphores, its undelivered grants
   * go back, its client is told its session ended. Leases it was delivered outlive it, as always.
   * For freeing what a dead holder with a long TTL keeps. Blocks until applied; thread-safe.
   *
   * @throws SemaforException NOT_FOUND if no such session is live; INVALID_ARGUMENT for this
   *     client's own session ({@link #close} it instead)
   */
  public void endSession(long sessionId) {
    rpc.call(
        Request.newBuilder()
            .setEndSession(io.semafor.protocol.v1.EndSession.newBuilder().setSessionId(sessionId)));
  }

  /**
   * A handle on the lease with this permit id, from whichever process took it, on any semaphore. A
   * server that checks permissions refuses to renew or release it (INVALID_ARGUMENT): use {@link
   * #lease(String, long)}.
   */
  public Lease lease(long permitId) {
    return new Lease(rpc, permitId, "", 0, List.of(), 0, 0);
  }

  /**
   * A handle on the lease with this permit id on {@code semaphore}, from whichever process took it.
   * Renewing it needs {@code acquire} on {@code semaphore}, releasing it {@code release}; a lease
   * on another semaphore is not found.
   */
  public Lease lease(String semaphore, long permitId) {
    return new Lease(rpc, permitId, semaphore, 0, List.of(), 0, 0);
  }

  /** A new, empty {@code semop}. */
  public Semop semop() {
    return new Semop(rpc);
  }

  /** A new, empty WaitMany list of this session. */
  public WaitMany waitMany() {
    return new WaitMany(rpc, nextListId.incrementAndGet());
  }

  /** The semaphore {@code name} as a {@link java.util.concurrent.Semaphore}. */
  public SemaforSemaphore jdkSemaphore(String name) {
    return new SemaforSemaphore(semaphore(name));
  }

  /** The id of this client's session (it changes only if the session was lost). */
  public long sessionId() {
    return link.sessionId();
  }

  /**
   * How long since this client last read anything from a server. Past the session's TTL the server
   * may have expired the session without this client knowing (it was cut off, or the server was
   * paused and did not); a holder that must never overlap another stops using its permits well
   * before that. Non-blocking; thread-safe.
   */
  public Duration sinceLastHeardFromServer() {
    return Duration.ofNanos(Math.max(0, System.nanoTime() - link.lastFrameNanos()));
  }

  /** The session's TTL, as the server granted it. */
  public Duration sessionTtl() {
    return Duration.ofNanos(link.sessionTtlNanos());
  }

  /**
   * Runs {@code listener} on a client thread whenever the session is lost — it expired because the
   * server heard nothing from this client for its TTL (the client could not reach a server, or was
   * not running: a long pause, SIGSTOP, a suspended VM) — as soon as the client learns it: at once
   * if its connection survived (the server says so on it), else on reconnecting. Then pending calls
   * have failed with {@link ErrorCode#SESSION_EXPIRED}, owned permits and undelivered grants and
   * leases went back, and a new session is being opened. The listener must not block.
   */
  public void onSessionLost(Runnable listener) {
    link.onSessionLost(listener);
  }

  /** Drops the connection as a network failure would, keeping the session (for tests). */
  public void simulateConnectionLoss() {
    link.dropConnection();
  }

  /**
   * Ends the session, so everything it owns goes back now, and closes the connection. Closing
   * acknowledges only what a caller received (docs/semantics.md#cancelled-waits): a grant a waiting
   * call read but has not handed to its caller (a lease or a WaitMany report whose delivery it was
   * confirming) is given back first, and one not read yet is left unacknowledged, so it goes back
   * with the session; those calls fail with UNAVAILABLE. Everything else read before the close is
   * acknowledged by it, so what it granted (consumed permits, leases) stays delivered. Blocks for
   * one round trip (at most the answer timeout), and one more per grant given back. Idempotent;
   * requests still waiting fail.
   */
  @Override
  public void close() {
    if (link.isClosed()) {
      return;
    }
    rpc.giveBackWaiting();
    link.close(answerTimeout);
  }

  /** Settings for a client; not thread-safe. */
  public static final class Builder {
    private final List<InetSocketAddress> addresses = new ArrayList<>();
    private Duration sessionTtl = Duration.ofSeconds(10);
    private String clientName = "java";
    private Duration connectTimeout = Duration.ofSeconds(5);
    private Duration answerTimeout = Duration.ofSeconds(30);
    private @Nullable Duration giveUpAfter;
    private String token = "";
    private @Nullable TlsConfig tls;

    private Builder() {}

    /**
     * Speak TLS to the servers, with {@code config}'s CA, client certificate and hostname
     * verification; default plain TCP. A server that speaks TLS refuses a plaintext client, and a
     * plaintext server a TLS one: the connection fails with UNAVAILABLE.
     */
    public Builder tls(TlsConfig config) {
      tls = config;
      return this;
    }

    /** {@code "host:port"}, or several separated by commas. */
    public Builder addresses(String value) {
      for (String part : value.split(",", -1)) {
        String hostPort = part.trim();
        int colon = hostPort.lastIndexOf(':');
        if (colon <= 0 || colon == hostPort.length() - 1) {
          throw new IllegalArgumentException("address not host:port: " + hostPort);
        }
        String host = hostPort.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]")) {
          host = host.substring(1, host.length() - 1);
        }
        int port;
        try {
          port = Integer.parseInt(hostPort.substring(colon + 1));
        } catch (NumberFormatException e) {
          throw new IllegalArgumentException("address port not a number: " + hostPort, e);
        }
        if (port < 1 || port > 65_535) {
          throw new IllegalArgumentException("address port outside 1..65535: " + hostPort);
        }
        addresses.add(InetSocketAddress.createUnresolved(host, port));
      }
      return this;
    }

    /** How long the session outlives this client's silence; default 10 s. */
    public Builder sessionTtl(Duration value) {
      sessionTtl = value;
      return this;
    }

    /**
     * A name shown by inspection tools with this process's host and PID; default "java"; at most
     * 255 UTF-8 bytes.
     */
    public Builder clientName(String value) {
      clientName = value;
      return this;
    }

    /**
     * The bearer token that authenticates this client to a server started with {@code --auth-file}
     * (docs/security.md#tokens); default none. Sent in every Hello; never logged.
     */
    public Builder token(String value) {
      token = value;
      return this;
    }

    /** The addresses given so far, in order. */
    List<InetSocketAddress> addressList() {
      return List.copyOf(addresses);
    }

    /**
     * How long one connection attempt to one address may take (TCP, TLS, Hello); default 5 s.
     * Addresses are raced, not tried in turn: the next one starts too if an attempt has not been
     * answered within 250 ms, so a member that accepts connections but never answers (frozen by a
     * pause) delays connecting by 250 ms, not by this timeout. A first connection fails once every
     * address has failed or timed out, unless a member answered that it does not lead (an
     * election): then it tries again until this timeout has passed. Reconnecting goes on until
     * {@code giveUpAfter} fails the pending requests, and after.
     */
    public Builder connectTimeout(Duration value) {
      connectTimeout = value;
      return this;
    }

    /** How long to wait for an answer beyond the operation's own timeout; default 30 s. */
    public Builder answerTimeout(Duration value) {
      answerTimeout = value;
      return this;
    }

    /**
     * How long without any reachable server before waiting requests fail with UNAVAILABLE (their
     * outcome unknown); default the session TTL plus 5 s.
     */
    public Builder giveUpAfter(Duration value) {
      giveUpAfter = value;
      return this;
    }

    /**
     * Connects and opens a session.
     *
     * @throws IllegalArgumentException for settings out of range, naming them
     * @throws SemaforException UNAVAILABLE if no address can be reached
     */
    public SemaforClient connect() {
      if (addresses.isEmpty()) {
        throw new IllegalArgumentException("addresses: none given");
      }
      if (sessionTtl.isNegative() || sessionTtl.isZero()) {
        throw new IllegalArgumentException("sessionTtl <= 0: " + sessionTtl);
      }
      if (clientName.getBytes(StandardCharsets.UTF_8).length > 255) {
        throw new IllegalArgumentException("clientName: longer than 255 bytes");
      }
      List<InetSocketAddress> resolved = new ArrayList<>();
      for (InetSocketAddress a : addresses) {
        resolved.add(new InetSocketAddress(a.getHostString(), a.getPort()));
      }
      Duration giveUp = giveUpAfter != null ? giveUpAfter : sessionTtl.plusSeconds(5);
      Link link =
          Link.open(
              new LinkConfig(
                  resolved,
                  sessionTtl,
                  clientName,
                  LocalHost.name(),
                  ProcessHandle.current().pid(),
                  connectTimeout,
                  giveUp,
                  token,
                  tls == null ? null : tls.sslContext(),
                  tls == null || tls.hostnameVerification()));
      return new SemaforClient(link, answerTimeout);
    }
  }
}
