package io.semafor.server.security;

import io.semafor.core.Name;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * One version of the auth file, compiled for the checks each request makes: a token's entry found
 * by its id, a principal's grants found by its name. Immutable and thread-safe; a reload replaces
 * it whole.
 */
public final class Access {
  /** A server without an auth file: anonymous, and everything allowed. */
  public static final Access OPEN = new Access(Map.of(), Map.of(), List.of(), false);

  private record Grant(Name prefix, EnumSet<Permission> permissions) {}

  private final Map<String, AuthFile.TokenEntry> tokens;
  private final Map<String, List<Grant>> grants;
  private final List<Grant> everyone;
  private final boolean enforced;

  private Access(
      Map<String, AuthFile.TokenEntry> tokens,
      Map<String, List<Grant>> grants,
      List<Grant> everyone,
      boolean enforced) {
    this.tokens = tokens;
    this.grants = grants;
    this.everyone = everyone;
    this.enforced = enforced;
  }

  /** Checks and compiles a parsed file; IllegalArgumentException names what is wrong. */
  static Access of(AuthFile file) {
    Map<String, AuthFile.TokenEntry> tokens = new HashMap<>();
    List<AuthFile.TokenEntry> entries = file.tokens() == null ? List.of() : file.tokens();
    for (int i = 0; i < entries.size(); i++) {
      AuthFile.TokenEntry t = entries.get(i);
      String where = "tokens[" + i + "]";
      if (t == null
          || blank(t.principal())
          || blank(t.id())
          || blank(t.salt())
          || blank(t.sha256())) {
        throw new IllegalArgumentException(
            where + ": needs principal, id, salt and sha256 (as `semafor auth token` prints)");
      }
      if (t.expires() != null) {
        try {
          Instant.parse(t.expires());
        } catch (DateTimeParseException e) {
          throw new IllegalArgumentException(
              where + ".expires: not an ISO-8601 instant: " + t.expires());
        }
      }
      if (tokens.put(t.id(), t) != null) {
        throw new IllegalArgumentException(where + ".id: " + t.id() + " appears twice");
      }
    }
    Map<String, List<Grant>> grants = new HashMap<>();
    List<Grant> everyone = new ArrayList<>();
    List<AuthFile.Rule> rules = file.rules() == null ? List.of() : file.rules();
    for (int i = 0; i < rules.size(); i++) {
      AuthFile.Rule r = rules.get(i);
      String where = "rules[" + i + "]";
      if (r == null || blank(r.principal())) {
        throw new IllegalArgumentException(where + ".principal: missing");
      }
      EnumSet<Permission> permissions = EnumSet.noneOf(Permission.class);
      for (String word : r.permissions() == null ? List.<String>of() : r.permissions()) {
        Permission p = word == null ? null : Permission.of(word);
        if (p == null) {
          throw new IllegalArgumentException(
              where
                  + ".permissions: unknown permission '"
                  + word
                  + "' (read, acquire, release, admin, cluster)");
        }
        permissions.add(p);
      }
      Grant g = new Grant(Name.of(r.prefix() == null ? "" : r.prefix()), permissions);
      if (r.principal().equals("*")) {
        everyone.add(g);
      } else {
        grants.computeIfAbsent(r.principal(), k -> new ArrayList<>()).add(g);
      }
    }
    return new Access(Map.copyOf(tokens), Map.copyOf(grants), List.copyOf(everyone), true);
  }

  private static boolean blank(@Nullable String s) {
    return s == null || s.isBlank();
  }

  /** Whether this server authenticates and checks permissions (an auth file is in force). */
  public boolean enforced() {
    return enforced;
  }

  /** How many tokens and rules are in force, for the log line a reload writes. */
  public String summary() {
    int rules = everyone.size();
    for (List<Grant> g : grants.values()) {
      rules += g.size();
    }
    return io.semafor.server.options.CommandLines.count(tokens.size(), "token")
        + ", "
        + io.semafor.server.options.CommandLines.count(rules, "rule");
  }

  /** Why a credential was refused: said to the client and to the audit log, never the secret. */
  public static final class Refused extends Exception {
    private static final long serialVersionUID = 1L;

    private final String reason;

    Refused(String reason) {
      super(reason, null, false, false);
      this.reason = reason;
    }

    /** Why, naming the credential but never its secret. */
    public String reason() {
      return reason;
    }
  }

  /**
   * The principal a connection is taken for. With no auth file, anyone is {@link
   * Principal#ANONYMOUS}. Otherwise the bearer {@code token} if one is given, else the verified
   * client certificate's principal, else nobody.
   *
   * @param token the token from {@code Hello} or the admin request; empty if none
   * @param certificate the principal named by the verified client certificate, or null
   * @param now the time against which expiry is checked
   * @throws Refused with the reason, if the credentials are missing, unknown, wrong or expired
   */
  public Principal authenticate(String token, @Nullable String certificate, Instant now)
      throws Refused {
    if (!enforced) {
      return Principal.ANONYMOUS;
    }
    if (token.isEmpty()) {
      if (certificate != null && !certificate.isEmpty()) {
        return new Principal(certificate, "certificate");
      }
      throw new Refused("credentials: none given (a token, or a client certificate)");
    }
    Tokens.Parsed parsed = Tokens.parse(token);
    AuthFile.TokenEntry entry = parsed == null ? null : tokens.get(parsed.id());
    if (parsed == null || entry == null || !Tokens.matches(entry, parsed.secret())) {
      throw new Refused("token: not valid (unknown, revoked or mistyped)");
    }
    String expires = entry.expires();
    Instant end = expires == null ? null : Instant.parse(expires);
    if (end != null && !now.isBefore(end)) {
      throw new Refused("token: expired at " + expires);
    }
    return new Principal(entry.principal(), "token", end);
  }

  /**
   * Whether a token that authenticated a connection still would: false once it is revoked or has
   * expired, so that a reload can close the connections it no longer admits.
   */
  public boolean stillAdmits(Principal principal, String token, Instant now) {
    if (!enforced || !principal.how().equals("token")) {
      return true;
    }
    try {
      return authenticate(token, null, now).equals(principal);
    } catch (Refused e) {
      return false;
    }
  }

  /** Whether {@code principal} has {@code permission} on {@code name}. */
  public boolean allows(Principal principal, Permission permission, Name name) {
    if (!enforced) {
      return true;
    }
    if (principal.isAnonymous()) {
      return false;
    }
    return covers(grants.getOrDefault(principal.name(), List.of()), permission, name)
        || covers(everyone, permission, name);
  }

  /**
   * The prefixes under which {@code principal} may read, none under another (["" ] — every name —
   * when this server does not authenticate), in name order: a listing for it reads these ranges and
   * nothing else, so it neither scans names it may not see nor learns of them.
   */
  public List<Name> readablePrefixes(Principal principal) {
    if (!enforced) {
      return List.of(Name.of(""));
    }
    List<Name> all = new ArrayList<>();
    if (!principal.isAnonymous()) {
      for (Grant g : grants.getOrDefault(principal.name(), List.of())) {
        if (g.permissions.contains(Permission.READ)) {
          all.add(g.prefix);
        }
      }
    }
    for (Grant g : everyone) {
      if (g.permissions.contains(Permission.READ)) {
        all.add(g.prefix);
      }
    }
    java.util.Collections.sort(all);
    List<Name> out = new ArrayList<>();
    for (Name p : all) {
      // sorted, so a prefix comes before every name it covers: keep only the outermost
      if (out.isEmpty() || !p.startsWith(out.get(out.size() - 1))) {
        out.add(p);
      }
    }
    return out;
  }

  /** Whether {@code principal} has the node-wide {@code cluster} permission. */
  public boolean allowsCluster(Principal principal) {
    return allows(principal, Permission.CLUSTER, Name.of(""));
  }

  private static boolean covers(List<Grant> grants, Permission permission, Name name) {
    for (Grant g : grants) {
      // cluster is node-wide: a rule that grants it grants it whatever its prefix
      if (g.permissions.contains(permission)
          && (permission == Permission.CLUSTER || name.startsWith(g.prefix))) {
        return true;
      }
    }
    return false;
  }
}
