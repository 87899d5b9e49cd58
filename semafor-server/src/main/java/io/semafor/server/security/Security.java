package io.semafor.server.security;

import java.nio.file.Path;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The auth file in force on this node, replaced whole by {@link #reload()}: every check reads the
 * current {@link Access}, so a reload applies to the next request of every connection. Thread-safe.
 */
public final class Security {
  private static final Logger log = LoggerFactory.getLogger(Security.class);

  private final @Nullable Path file;
  private volatile Access access;

  private Security(@Nullable Path file, Access access) {
    this.file = file;
    this.access = access;
  }

  /** No auth file: everyone anonymous, everything allowed. */
  public static Security open() {
    return new Security(null, Access.OPEN);
  }

  /**
   * The rules of {@code file}, read now. Blocking (file I/O).
   *
   * @throws AuthFile.Invalid if the file cannot be used
   */
  public static Security of(Path file) throws AuthFile.Invalid {
    return new Security(file, AuthFile.load(file));
  }

  /** The rules in force now. */
  public Access access() {
    return access;
  }

  /** The auth file, or null if there is none. */
  public @Nullable Path file() {
    return file;
  }

  /**
   * Reads the auth file again and puts it in force; a file that cannot be used leaves the rules as
   * they were. Blocking (file I/O).
   *
   * @return the new rules
   * @throws AuthFile.Invalid if the file cannot be used (nothing changed)
   * @throws IllegalStateException if this server has no auth file
   */
  public synchronized Access reload() throws AuthFile.Invalid {
    Path f = file;
    if (f == null) {
      throw new IllegalStateException("this server has no auth file to reload");
    }
    Access loaded = AuthFile.load(f);
    access = loaded;
    log.info("auth file {} reloaded: {}", f, loaded.summary());
    return loaded;
  }
}
