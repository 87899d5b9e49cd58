package io.semafor.it;

import static org.junit.jupiter.api.DynamicTest.dynamicTest;

import io.semafor.client.SemaforClient;
import io.semafor.conformance.CaseParser;
import io.semafor.conformance.ConformanceCase;
import io.semafor.embedded.EmbeddedSemafor;
import io.semafor.it.conformance.CaseExecutor;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

/**
 * The conformance kit (conformance/README.md) run with the Java client: every case file, one
 * dynamic test each named by the case, against a fresh embedded single node with each actor behind
 * its own proxy; then the cases tagged {@code cluster-safe} against one 3-node cluster in this JVM
 * (the others are reported skipped there, with the reason). A case file the runner cannot read
 * fails its test.
 */
class ConformanceTest {
  /** Where the kit is: the repository's conformance/, beside this module. */
  static final Path KIT = Path.of(System.getProperty("semafor.conformance.dir", "../conformance"));

  /** Every tag the Java runner supports: all of them. */
  private static final Set<String> SUPPORTED = ConformanceCase.KNOWN_TAGS;

  @TempDir static Path clusterDir;

  private static @Nullable TestCluster cluster;

  @AfterAll
  static void stopCluster() {
    if (cluster != null) {
      cluster.close();
    }
  }

  static List<Path> caseFiles() throws IOException {
    return CaseParser.caseFiles(KIT.resolve("cases"));
  }

  private static String caseName(Path file) {
    return file.getFileName().toString().replaceFirst("\\.json$", "");
  }

  @TestFactory
  Stream<DynamicTest> singleNode() throws IOException {
    return caseFiles().stream()
        .map(
            file ->
                dynamicTest(
                    caseName(file),
                    file.toUri(),
                    () -> {
                      ConformanceCase kase = CaseParser.parse(file);
                      assumeSupported(kase);
                      try (EmbeddedSemafor semafor = EmbeddedSemafor.start();
                          CaseExecutor executor =
                              CaseExecutor.proxied(kase, semafor.server().address())) {
                        executor.run();
                      }
                    }));
  }

  @TestFactory
  Stream<DynamicTest> threeNodeCluster() throws IOException {
    return caseFiles().stream()
        .map(
            file ->
                dynamicTest(
                    caseName(file),
                    file.toUri(),
                    () -> {
                      ConformanceCase kase = CaseParser.parse(file);
                      assumeSupported(kase);
                      Assumptions.assumeTrue(
                          kase.clusterSafe(),
                          "not tagged cluster-safe: its steps need a proxy in front of each actor");
                      TestCluster nodes = cluster();
                      try {
                        try (CaseExecutor executor = CaseExecutor.direct(kase, nodes.addresses())) {
                          executor.run();
                        }
                      } finally {
                        deleteEverySemaphore(nodes);
                      }
                    }));
  }

  private static void assumeSupported(ConformanceCase kase) {
    Set<String> missing = new TreeSet<>(kase.tags());
    missing.removeAll(SUPPORTED);
    Assumptions.assumeTrue(missing.isEmpty(), "this runner does not support " + missing);
  }

  /** One cluster for every cluster-safe case, started by the first. */
  private static synchronized TestCluster cluster() {
    if (cluster == null) {
      cluster = TestCluster.start(3, clusterDir, 10_000);
    }
    return cluster;
  }

  /** The cases share the cluster: each starts with no semaphore. */
  private static void deleteEverySemaphore(TestCluster nodes) {
    try (SemaforClient admin = nodes.client(Duration.ofSeconds(10))) {
      for (String name : admin.list("")) {
        admin.semaphore(name).delete();
      }
    }
  }
}
