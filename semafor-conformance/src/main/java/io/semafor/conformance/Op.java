package io.semafor.conformance;

import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * The operations an actor performs in a case (conformance/README.md, "Operations"): each with the
 * arguments it requires and allows, the fields of its result, and the tag a case using it must
 * carry. The parser holds every step to these, so a misspelt argument or result field fails the
 * case instead of being ignored.
 */
@SuppressWarnings("ImmutableEnumChecker") // the sets are Set.of: immutable
public enum Op {
  CREATE(Set.of("name", "initial"), Set.of("capacity", "policy", "max_per_session"), "", "created"),
  DELETE(Set.of("name"), Set.of(), ""),
  GET(
      Set.of("name"),
      Set.of(),
      "",
      "value",
      "waiters",
      "holders",
      "leases",
      "owned",
      "leased",
      "undelivered"),
  INSPECT(Set.of("name"), Set.of(), "", "value", "queue", "holders", "leases"),
  SET(Set.of("name", "value"), Set.of(), "", "previous"),
  INCREMENT(Set.of("name", "amount"), Set.of(), "", "value"),
  DECREMENT(Set.of("name", "amount", "timeout_ms"), Set.of(), "", "amount"),
  ACQUIRE(
      Set.of("name", "amount", "timeout_ms"),
      Set.of("owned"),
      "session",
      "granted",
      "slots",
      "token"),
  TRY_ACQUIRE(Set.of("name", "amount"), Set.of("owned"), "session", "granted", "slots", "token"),
  RELEASE(Set.of("name", "amount"), Set.of(), "session"),
  RELEASE_SLOT(Set.of("name", "slot"), Set.of(), "session"),
  LEASE(
      Set.of("name", "amount", "ttl_ms", "timeout_ms"),
      Set.of(),
      "lease",
      "granted",
      "permit_id",
      "slots",
      "token"),
  RENEW(Set.of("permit_id", "ttl_ms"), Set.of("name"), "lease"),
  RELEASE_LEASE(Set.of("permit_id"), Set.of("name"), "lease", "released"),
  AWAIT_ZERO(Set.of("name", "timeout_ms"), Set.of(), "session", "reached"),
  SEMOP(Set.of("ops", "timeout_ms"), Set.of(), "semop", "done", "token"),
  WAIT_MANY_ADD(Set.of("list", "name", "amount"), Set.of(), "wait_many"),
  WAIT_MANY_REMOVE(Set.of("list", "name"), Set.of(), "wait_many", "returned"),
  WAIT_MANY(Set.of("list", "timeout_ms"), Set.of(), "wait_many", "reports"),
  CANCEL(Set.of("handle"), Set.of(), "session"),
  CLOSE(Set.of(), Set.of(), "session");

  /** The fields of one {@code semop} op. */
  public static final Set<String> SEMOP_OP_FIELDS = Set.of("name", "delta", "no_wait", "owned");

  private final Set<String> required;
  private final Set<String> optional;
  private final String tag;
  private final Set<String> resultFields;

  Op(Set<String> required, Set<String> optional, String tag, String... resultFields) {
    this.required = required;
    this.optional = optional;
    this.tag = tag;
    this.resultFields = Set.of(resultFields);
  }

  /** The name a case file spells it with. */
  public String wireName() {
    return name().toLowerCase(Locale.ROOT);
  }

  public static Optional<Op> byWireName(String name) {
    return Arrays.stream(values()).filter(op -> op.wireName().equals(name)).findFirst();
  }

  public Set<String> required() {
    return required;
  }

  public boolean allows(String arg) {
    return required.contains(arg) || optional.contains(arg);
  }

  /** The tag a case using this operation must carry; empty for the basic operations. */
  public String tag() {
    return tag;
  }

  public Set<String> resultFields() {
    return resultFields;
  }

  /** Whether a case may poll it with {@code within_ms}: it reads and changes nothing. */
  public boolean isRead() {
    return this == GET || this == INSPECT;
  }
}
