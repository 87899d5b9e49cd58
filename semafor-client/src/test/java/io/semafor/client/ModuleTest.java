package io.semafor.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleFinder;
import java.lang.module.ModuleReference;
import java.net.URISyntaxException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The client's module exports its API package and nothing else: on the module path, the session's
 * internals ({@code io.semafor.client.internal}) cannot be reached (issue 33).
 */
class ModuleTest {
  private static ModuleDescriptor descriptor() throws URISyntaxException {
    Path classes =
        Path.of(SemaforClient.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    ModuleReference client =
        ModuleFinder.of(classes)
            .find("io.semafor.client")
            .orElseThrow(() -> new AssertionError("no module io.semafor.client in " + classes));
    return client.descriptor();
  }

  @Test
  void onlyTheApiPackageIsExported() throws URISyntaxException {
    assertThat(descriptor().exports())
        .extracting(ModuleDescriptor.Exports::source)
        .containsExactly("io.semafor.client");
    assertThat(descriptor().packages()).contains("io.semafor.client.internal");
  }

  @Test
  void theSharedTypesComeWithTheClient() throws URISyntaxException {
    assertThat(descriptor().requires())
        .filteredOn(r -> r.name().equals("io.semafor"))
        .singleElement()
        .satisfies(
            r -> assertThat(r.modifiers()).contains(ModuleDescriptor.Requires.Modifier.TRANSITIVE));
  }

  @Test
  void nothingIsOpenedForReflection() throws URISyntaxException {
    assertThat(descriptor().opens()).isEmpty();
    assertThat(descriptor().isOpen()).isFalse();
  }
}
