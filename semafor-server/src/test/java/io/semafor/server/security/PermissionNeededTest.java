package io.semafor.server.security;

import static org.assertj.core.api.Assertions.assertThat;

import io.semafor.SemaphoreOptions;
import io.semafor.core.Name;
import io.semafor.core.Operation;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** The permission each operation on one semaphore needs (docs/security.md#permissions). */
class PermissionNeededTest {
  private static final Name N = Name.of("x");

  /** One operation of every kind on one semaphore, with the permission it must need. */
  private static Map<Operation, Permission> everyKind() {
    Map<Operation, Permission> m = new LinkedHashMap<>();
    m.put(new Operation.Create(N, 1, SemaphoreOptions.DEFAULT), Permission.ADMIN);
    m.put(new Operation.Delete(N), Permission.ADMIN);
    m.put(new Operation.SetValue(N, 1), Permission.ADMIN);
    m.put(new Operation.Increment(N, 1), Permission.RELEASE);
    m.put(new Operation.Release(N, 1), Permission.RELEASE);
    m.put(new Operation.ReleaseSlot(N, 0), Permission.RELEASE);
    m.put(new Operation.AwaitZero(N, 0), Permission.READ);
    m.put(new Operation.Decrement(N, 1, 0, true), Permission.ACQUIRE);
    m.put(new Operation.Acquire(N, 1, 0, true), Permission.ACQUIRE);
    m.put(new Operation.AcquireLease(N, 1, 1, 0), Permission.ACQUIRE);
    m.put(new Operation.AddToWaitMany(1, N, 1), Permission.ACQUIRE);
    m.put(new Operation.RemoveFromWaitMany(1, N), Permission.ACQUIRE);
    return m;
  }

  @Test
  void eachOperationOnOneSemaphoreNeedsItsPermission() {
    everyKind().forEach((op, p) -> assertThat(Authorizer.needed(op)).as("%s", op).isEqualTo(p));
  }

  @Test
  void everyKindOfOperationOnOneSemaphoreHasItsPermissionDefinedHere() {
    Set<Class<?>> onOne =
        Arrays.stream(Operation.class.getPermittedSubclasses())
            .filter(Operation.OnOneSemaphore.class::isAssignableFrom)
            .collect(Collectors.toSet());
    Set<Class<?>> covered =
        everyKind().keySet().stream().map(Object::getClass).collect(Collectors.toSet());
    assertThat(covered).isEqualTo(onOne);
  }
}
