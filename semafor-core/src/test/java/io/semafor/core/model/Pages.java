package io.semafor.core.model;

import io.semafor.core.Name;
import io.semafor.core.Query;
import io.semafor.core.Result;
import io.semafor.core.SemaphoreMachine;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/** Reads every page of a semaphore's inspection, as a client following the pages does. */
final class Pages {
  private Pages() {}

  /**
   * Every page of {@code name} at the machine's current state, {@code limit} entries per list,
   * joined into one complete view; null if there is no such semaphore.
   */
  static Result.@Nullable SemaphoreDetail all(SemaphoreMachine machine, Name name, int limit) {
    List<Result.WaiterView> queue = new ArrayList<>();
    List<Result.HolderView> holders = new ArrayList<>();
    List<Result.LeaseView> leases = new ArrayList<>();
    Query.Position from = Query.Position.START;
    boolean queueDone = false;
    boolean holdersDone = false;
    boolean leasesDone = false;
    Result.SemaphoreDetail page = null;
    // Each page shows at least one entry of a list that has more, so this ends within as many
    // pages as there are entries; the bound only turns a bug into a failure instead of a hang.
    for (int pages = 0; pages < 10_000 && !(queueDone && holdersDone && leasesDone); pages++) {
      Result result = machine.query(new Query.Inspect(name, limit, from, 0)).result();
      if (!(result instanceof Result.SemaphoreDetail detail)) {
        return null;
      }
      page = detail;
      if (!queueDone) {
        queue.addAll(page.queue());
        queueDone = !page.queueMore();
      }
      if (!holdersDone) {
        holders.addAll(page.holders());
        holdersDone = !page.holdersMore();
      }
      if (!leasesDone) {
        leases.addAll(page.leases());
        leasesDone = !page.leasesMore();
      }
      from = page.next();
    }
    if (page == null || !(queueDone && holdersDone && leasesDone)) {
      throw new AssertionError("inspection of " + name + " did not end");
    }
    return new Result.SemaphoreDetail(page.status(), queue, holders, leases);
  }
}
