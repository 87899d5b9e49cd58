package io.semafor.server.watch;

import io.semafor.core.Name;
import io.semafor.core.Query;
import io.semafor.core.Result;
import io.semafor.core.SemaphoreMachine;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * What a watch reads of the state: a semaphore's state and the names under a prefix, at the
 * revision last applied. Only on the applying thread, between commands.
 */
public interface StateReader {
  /** The revision of the last command applied. */
  long revision();

  /**
   * The state of {@code name}: one page of {@code limit} entries per list, or its status alone if
   * {@code summary}; null if no semaphore has the name.
   */
  @Nullable Result state(Name name, int limit, boolean summary);

  /**
   * Up to {@code limit} names starting with {@code prefix}, after {@code after} if given, and
   * whether more follow (a page may stop short of {@code limit} at its byte budget).
   */
  Result.NameList names(Name prefix, @Nullable Name after, int limit);

  /** A reader of {@code machine}. */
  static StateReader of(SemaphoreMachine machine) {
    return new StateReader() {
      @Override
      public long revision() {
        return machine.revision();
      }

      @Override
      public @Nullable Result state(Name name, int limit, boolean summary) {
        Result r =
            summary
                ? machine.query(new Query.Get(name)).result()
                : machine.query(new Query.Inspect(name, limit, Query.Position.START, 0)).result();
        return r instanceof Result.Failure ? null : r;
      }

      @Override
      public Result.NameList names(Name prefix, @Nullable Name after, int limit) {
        Result r = machine.query(new Query.ListNames(prefix, limit, after)).result();
        return r instanceof Result.NameList list ? list : new Result.NameList(List.of());
      }
    };
  }
}
