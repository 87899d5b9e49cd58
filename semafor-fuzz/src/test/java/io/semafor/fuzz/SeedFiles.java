package io.semafor.fuzz;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Writes seed inputs where Jazzer finds them: {@code src/test/resources/<package>/<Class>Inputs/
 * <method>/}, relative to the module (Maven's working directory for tests).
 */
public final class SeedFiles {
  private SeedFiles() {}

  /**
   * The system property that makes the seed writers run: {@code -Dsemafor.fuzz.writeSeeds=true}.
   */
  public static final String PROPERTY = "semafor.fuzz.writeSeeds";

  /** Writes {@code bytes} as the seed {@code name} of {@code target}'s fuzz test {@code method}. */
  public static void write(Class<?> target, String method, String name, byte[] bytes)
      throws IOException {
    Path dir =
        Path.of("src/test/resources")
            .resolve(target.getPackageName().replace('.', '/'))
            .resolve(target.getSimpleName() + "Inputs")
            .resolve(method);
    Files.createDirectories(dir);
    Files.write(dir.resolve("seed-" + name), bytes);
  }
}
