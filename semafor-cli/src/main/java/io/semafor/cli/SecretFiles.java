package io.semafor.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.EnumSet;
import java.util.Set;

/**
 * Writes a secret (a token) to a file that only its owner can read, from the first byte: the file
 * is created with mode 0600 (the umask can only take bits away), never written as 0644 and then
 * {@code chmod}ed. Stateless.
 */
final class SecretFiles {
  private SecretFiles() {}

  private static final Set<PosixFilePermission> OWNER_ONLY =
      EnumSet.of(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE);

  /**
   * Writes {@code content} to {@code file}, mode 0600 where the file system has POSIX modes.
   * Without {@code replace} an existing file is never touched (created with O_EXCL, so a file that
   * appears meanwhile is not either); with it, the secret goes to a new file beside it that is then
   * renamed over the old one, which keeps its mode no longer.
   *
   * @throws java.nio.file.FileAlreadyExistsException if the file exists and {@code replace} is not
   *     set
   * @throws IOException if it cannot be written
   */
  static void write(Path file, String content, boolean replace) throws IOException {
    byte[] bytes = content.getBytes(StandardCharsets.UTF_8);
    if (!replace) {
      Files.write(Files.createFile(file, ownerOnly()), bytes, StandardOpenOption.TRUNCATE_EXISTING);
      return;
    }
    Path dir = file.toAbsolutePath().getParent();
    Path part = Files.createTempFile(dir, "." + file.getFileName(), ".part", ownerOnly());
    try {
      Files.write(part, bytes, StandardOpenOption.TRUNCATE_EXISTING);
      Files.move(part, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    } finally {
      Files.deleteIfExists(part);
    }
  }

  private static FileAttribute<?>[] ownerOnly() {
    if (!FileSystems.getDefault().supportedFileAttributeViews().contains("posix")) {
      return new FileAttribute<?>[0];
    }
    return new FileAttribute<?>[] {PosixFilePermissions.asFileAttribute(OWNER_ONLY)};
  }
}
