package io.semafor.client;

import com.google.protobuf.ByteString;
import io.semafor.client.internal.Rpc;
import io.semafor.protocol.v1.ListNames;
import io.semafor.protocol.v1.ListSessions;
import io.semafor.protocol.v1.NameList;
import io.semafor.protocol.v1.Read;
import io.semafor.protocol.v1.ReadResponse;
import io.semafor.protocol.v1.SessionList;
import io.semafor.protocol.v1.SessionView;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The paged reads behind {@link SemaforClient#list}, {@link SemaforClient#listSemaphores} and
 * {@link SemaforClient#sessions}: each page asks for what follows the last item of the one before,
 * until the server says there is no more. Each page is consistent; the whole list is not one
 * snapshot when other clients change things meanwhile. Thread-safe (it keeps no state; {@link Rpc}
 * is thread-safe); failures are {@link SemaforException}s, as {@link Rpc#read} throws them.
 */
final class Listings {
  /** Names asked per page. */
  private static final int PAGE = 1000;

  /** Names with statuses asked per page; the server stops a page earlier at its byte budget. */
  private static final int STATUS_PAGE = 1000;

  /** Sessions asked per page. */
  private static final int SESSION_PAGE = 1000;

  private final Rpc rpc;

  Listings(Rpc rpc) {
    this.rpc = rpc;
  }

  /** Every name starting with {@code prefix}, in byte order. Blocks. */
  List<String> names(String prefix) {
    List<String> out = new ArrayList<>();
    while (true) {
      NameList page = rpc.read(namesAfter(prefix, out)).getNames();
      if (!addPage(out, page)) {
        return out;
      }
    }
  }

  /** {@link #names} without blocking; cancelling the future stops it. */
  CompletableFuture<List<String>> namesAsync(String prefix) {
    return namesFrom(prefix, new ArrayList<>());
  }

  private CompletableFuture<List<String>> namesFrom(String prefix, List<String> out) {
    return rpc.readAsync(namesAfter(prefix, out))
        .thenCompose(
            r ->
                addPage(out, r.getNames())
                    ? namesFrom(prefix, out)
                    : CompletableFuture.completedFuture(out));
  }

  /** The read of the page after the names already in {@code out}. */
  private static Read.Builder namesAfter(String prefix, List<String> out) {
    ListNames.Builder list = ListNames.newBuilder().setPrefix(utf8(prefix)).setLimit(PAGE);
    if (!out.isEmpty()) {
      list.setAfter(utf8(out.get(out.size() - 1))).setHasAfter(true);
    }
    return Read.newBuilder().setListNames(list);
  }

  /** Adds a page's names; returns whether another page may follow. */
  private static boolean addPage(List<String> out, NameList page) {
    for (ByteString name : page.getNamesList()) {
      out.add(name.toString(StandardCharsets.UTF_8));
    }
    return page.getMore();
  }

  /** Every semaphore whose name starts with {@code prefix}, with its status. Blocks. */
  List<SemaphoreInfo> statuses(String prefix) {
    List<SemaphoreInfo> out = new ArrayList<>();
    while (true) {
      ListNames.Builder page =
          ListNames.newBuilder().setPrefix(utf8(prefix)).setLimit(STATUS_PAGE).setWithStatus(true);
      if (!out.isEmpty()) {
        page.setAfter(utf8(out.get(out.size() - 1).name())).setHasAfter(true);
      }
      ReadResponse read = rpc.read(Read.newBuilder().setListNames(page));
      out.addAll(Infos.statuses(read));
      if (!read.getNames().getMore()) {
        return out;
      }
    }
  }

  /** Every live session, in id order. Blocks. */
  List<SessionInfo> sessions() {
    List<SessionInfo> out = new ArrayList<>();
    long after = 0;
    while (true) {
      SessionList page =
          rpc.read(
                  Read.newBuilder()
                      .setListSessions(
                          ListSessions.newBuilder().setLimit(SESSION_PAGE).setAfter(after)))
              .getSessions();
      for (SessionView s : page.getSessionsList()) {
        out.add(Infos.session(s));
        after = s.getSessionId();
      }
      if (!page.getMore()) {
        return out;
      }
    }
  }

  private static ByteString utf8(String s) {
    return ByteString.copyFrom(s, StandardCharsets.UTF_8);
  }
}
