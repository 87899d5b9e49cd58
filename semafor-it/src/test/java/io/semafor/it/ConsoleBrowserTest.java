package io.semafor.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.semafor.client.Lease;
import io.semafor.client.NamedSemaphore;
import io.semafor.client.Permit;
import io.semafor.client.SemaforClient;
import io.semafor.client.SemaforException;
import io.semafor.embedded.EmbeddedSemafor;
import io.semafor.server.ServerConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.assertj.core.api.Assertions;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.openqa.selenium.By;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;

/**
 * The admin console in a real browser: Debian's headless Chromium, driven through its chromedriver
 * by Selenium, against a real server, while real clients contend (docs/console.md). Where Chromium
 * is not installed the tests are skipped, unless {@code SEMAFOR_BROWSER_TESTS=required} (as {@code
 * .ci/run} sets after installing it), which makes its absence a failure.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ConsoleBrowserTest {
  private static final Duration SHOWN_WITHIN = Duration.ofSeconds(10);

  private static @Nullable ChromeDriverService service;
  private static @Nullable ChromeDriver browser;
  private static @Nullable Path profile;

  private EmbeddedSemafor semafor;
  private String page;

  private static @Nullable Path firstExisting(String... paths) {
    for (String p : paths) {
      if (Files.isExecutable(Path.of(p))) {
        return Path.of(p);
      }
    }
    return null;
  }

  @BeforeAll
  static void startBrowser() throws IOException {
    Path chromium = firstExisting("/usr/bin/chromium", "/usr/bin/chromium-browser");
    Path driver = firstExisting("/usr/bin/chromedriver", "/usr/lib/chromium/chromedriver");
    if (chromium == null || driver == null) {
      String missing =
          "Chromium and its chromedriver are not installed (apt-get install chromium"
              + " chromium-driver)";
      if ("required".equals(System.getenv("SEMAFOR_BROWSER_TESTS"))) {
        Assertions.fail(missing + ", and SEMAFOR_BROWSER_TESTS=required");
      }
      Assumptions.abort(missing + ": the console's browser tests are skipped");
    }
    profile = Files.createTempDirectory("semafor-chromium");
    service =
        new ChromeDriverService.Builder()
            .usingDriverExecutable(driver.toFile())
            .usingAnyFreePort()
            .build();
    ChromeOptions options = new ChromeOptions();
    options.setBinary(chromium.toFile());
    options.addArguments(
        "--headless=new",
        "--no-sandbox", // CI runs as root, where Chromium's sandbox will not start
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--window-size=1440,1000",
        "--user-data-dir=" + profile);
    browser = new ChromeDriver(service, options);
  }

  @AfterAll
  static void stopBrowser() throws IOException {
    if (browser != null) {
      browser.quit();
    }
    if (service != null) {
      service.stop();
    }
    if (profile != null) {
      try (var files = Files.walk(profile)) {
        files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
  }

  @BeforeEach
  void startServer() {
    semafor = EmbeddedSemafor.start(ServerConfig.builder().port(0).adminPort(0));
    page = "http://127.0.0.1:" + semafor.server().adminAddress().getPort() + "/";
  }

  @AfterEach
  void stopServer() {
    semafor.close();
  }

  private static ChromeDriver browser() {
    ChromeDriver b = browser;
    assertThat(b).isNotNull();
    return b;
  }

  private void open() {
    browser().get(page);
    await().atMost(SHOWN_WITHIN).until(() -> text("live-state").equals("live"));
  }

  /** The text of element {@code id}, read in one script (the page replaces elements as it goes). */
  private static String text(String id) {
    Object text =
        browser()
            .executeScript(
                "const e = document.getElementById(arguments[0]);"
                    + " return e === null ? '' : e.textContent",
                id);
    return String.valueOf(text);
  }

  /** The cells of the rows of table {@code id}'s body, as text. */
  @SuppressWarnings("unchecked") // what the script returns: a list of lists of strings
  private static List<List<String>> rows(String id) {
    // read in one script, so that a table the page replaces meanwhile is read whole or not at all
    return (List<List<String>>)
        browser()
            .executeScript(
                "return Array.from(document.querySelectorAll('#' + arguments[0]"
                    + " + ' tbody tr:not(.empty)')).map(r => Array.from(r.cells).map(c =>"
                    + " c.textContent))",
                id);
  }

  private static WebElement row(String table, String name) {
    return browser()
        .findElement(By.cssSelector("#" + table + " tbody tr[data-name='" + name + "']"));
  }

  private void select(String name) {
    await()
        .atMost(SHOWN_WITHIN)
        .until(
            () ->
                !browser()
                    .findElements(By.cssSelector("#semaphores tbody tr[data-name='" + name + "']"))
                    .isEmpty());
    // the row may be replaced by a newer view between finding and clicking it: find it again
    await()
        .atMost(SHOWN_WITHIN)
        .ignoreException(org.openqa.selenium.StaleElementReferenceException.class)
        .until(
            () -> {
              row("semaphores", name).click();
              return true;
            });
    await()
        .atMost(SHOWN_WITHIN)
        .until(
            () ->
                text("detail-name").equals(name)
                    && browser().findElement(By.id("detail")).isDisplayed());
  }

  private static void screenshot(String file) throws IOException {
    Path dir = Path.of("target", "console-screenshots");
    Files.createDirectories(dir);
    Path shot = browser().getScreenshotAs(OutputType.FILE).toPath();
    Files.copy(shot, dir.resolve(file), StandardCopyOption.REPLACE_EXISTING);
  }

  private static SemaforClient named(EmbeddedSemafor s, String name) {
    return SemaforClient.builder().addresses(s.address()).clientName(name).connect();
  }

  @Test
  void theConsoleListsTheSemaphoresWithTheirValues() {
    SemaforClient client = semafor.client();
    client.create("printers", 2);
    client.create("scanners", 1);
    open();
    await()
        .atMost(SHOWN_WITHIN)
        .until(
            () -> rows("semaphores").stream().map(r -> r.get(0) + "=" + r.get(1)).toList(),
            r -> r.equals(List.of("printers=2", "scanners=1")));
    assertThat(text("node")).contains("single node");
  }

  @Test
  void aValueChangedByAClientIsShownWithoutReloading() {
    NamedSemaphore printers = semafor.client().create("printers", 2);
    open();
    await().atMost(SHOWN_WITHIN).until(() -> rows("semaphores").size() == 1);
    printers.increment(40);
    await().atMost(SHOWN_WITHIN).until(() -> rows("semaphores").get(0).get(1), v -> v.equals("42"));
  }

  @Test
  void theQueueAndHoldersChangeLiveAsClientsContend() throws Exception {
    SemaforClient admin = semafor.client();
    admin.create("printers", 1);
    admin.create("licences", 3);
    admin.create("scanners", 2);
    try (SemaforClient alice = named(semafor, "alice");
        SemaforClient bob = named(semafor, "bob");
        SemaforClient carol = named(semafor, "carol")) {
      Lease licence = carol.semaphore("licences").acquireLease(1, Duration.ofMinutes(10));
      assertThat(licence).isNotNull();
      open();
      select("printers");
      Permit held = alice.semaphore("printers").acquirePermit(1);
      await()
          .atMost(SHOWN_WITHIN)
          .until(() -> rows("holders"), r -> r.size() == 1 && r.get(0).get(1).startsWith("alice"));
      CompletableFuture<Optional<Permit>> waiting =
          bob.semaphore("printers").acquirePermitAsync(1, Duration.ofMinutes(1));
      await()
          .atMost(SHOWN_WITHIN)
          .until(() -> rows("queue"), r -> r.size() == 1 && r.get(0).get(2).startsWith("bob"));
      assertThat(rows("queue").get(0).get(1)).isEqualTo(Long.toString(bob.sessionId()));
      assertThat(text("status-value")).isEqualTo("0");
      assertThat(text("status-waiters")).isEqualTo("1");
      assertThat(rows("semaphores"))
          .extracting(r -> r.get(0) + " " + r.get(1) + " " + r.get(3) + " " + r.get(5))
          .containsExactly("licences 2 0 1", "printers 0 1 0", "scanners 2 0 0");
      screenshot("contended.png"); // the README's picture

      held.close();
      Permit granted = waiting.get(10, TimeUnit.SECONDS).orElseThrow();
      await()
          .atMost(SHOWN_WITHIN)
          .until(
              () ->
                  rows("queue").isEmpty()
                      && rows("holders").size() == 1
                      && rows("holders").get(0).get(1).startsWith("bob"));
      granted.close();
      await().atMost(SHOWN_WITHIN).until(() -> text("status-value").equals("1"));
    }
  }

  @Test
  void aPrefixShowsOnlyTheNamesUnderItAndTheNextPageTheRest() {
    SemaforClient client = semafor.client();
    for (int i = 0; i < 130; i++) {
      client.create(String.format("jobs/%03d", i), 1);
    }
    client.create("archive", 1); // first without the filter: the first row says it is applied
    open();
    browser().findElement(By.id("prefix")).sendKeys("jobs/");
    await()
        .atMost(SHOWN_WITHIN)
        .until(
            () -> rows("semaphores"), r -> r.size() == 100 && r.get(0).get(0).equals("jobs/000"));
    browser().findElement(By.id("next-page")).click();
    await()
        .atMost(SHOWN_WITHIN)
        .until(
            () -> rows("semaphores"), r -> r.size() == 30 && r.get(29).get(0).equals("jobs/129"));
    assertThat(browser().findElement(By.id("next-page")).isEnabled()).isFalse();
    browser().findElement(By.id("first-page")).click();
    await()
        .atMost(SHOWN_WITHIN)
        .until(
            () -> rows("semaphores"), r -> r.size() == 100 && r.get(0).get(0).equals("jobs/000"));
  }

  @Test
  void deletingAsksForConfirmationAndCancellingChangesNothing() {
    NamedSemaphore printers = semafor.client().create("printers", 3);
    open();
    select("printers");
    browser().findElement(By.id("delete")).click();
    WebElement dialog = browser().findElement(By.id("confirm"));
    await().atMost(SHOWN_WITHIN).until(dialog::isDisplayed);
    assertThat(text("confirm-text")).contains("Delete printers?");
    browser().findElement(By.id("confirm-cancel")).click();
    await().atMost(SHOWN_WITHIN).until(() -> !dialog.isDisplayed());
    assertThat(printers.value()).isEqualTo(3);

    browser().findElement(By.id("delete")).click();
    await().atMost(SHOWN_WITHIN).until(dialog::isDisplayed);
    browser().findElement(By.id("confirm-ok")).click();
    await().atMost(SHOWN_WITHIN).until(() -> !dialog.isDisplayed());
    Assertions.assertThatThrownBy(printers::value)
        .isInstanceOfSatisfying(
            SemaforException.class, e -> assertThat(e.code().name()).isEqualTo("NOT_FOUND"));
    await().atMost(SHOWN_WITHIN).until(() -> rows("semaphores").isEmpty());
  }

  @Test
  void settingTheValueAsksForItAndTheNewValueIsShown() {
    NamedSemaphore printers = semafor.client().create("printers", 3);
    open();
    select("printers");
    browser().findElement(By.id("set-value")).click();
    await().atMost(SHOWN_WITHIN).until(() -> browser().findElement(By.id("confirm")).isDisplayed());
    browser().findElement(By.id("confirm-value")).sendKeys("7");
    browser().findElement(By.id("confirm-ok")).click();
    await().atMost(SHOWN_WITHIN).until(() -> text("status-value").equals("7"));
    assertThat(printers.value()).isEqualTo(7);
  }

  @Test
  void aRefusedActionSaysWhyInTheDialogAndChangesNothing() {
    NamedSemaphore printers = semafor.client().create("printers", 3);
    open();
    select("printers");
    browser().findElement(By.id("set-value")).click();
    await().atMost(SHOWN_WITHIN).until(() -> browser().findElement(By.id("confirm")).isDisplayed());
    browser().findElement(By.id("confirm-value")).sendKeys("-5");
    browser().findElement(By.id("confirm-ok")).click();
    await()
        .atMost(SHOWN_WITHIN)
        .until(() -> browser().findElement(By.id("confirm-error")).isDisplayed());
    assertThat(text("confirm-error")).startsWith("INVALID_ARGUMENT");
    assertThat(printers.value()).isEqualTo(3);
    browser().findElement(By.id("confirm-cancel")).click();
  }

  @Test
  void releasingALeaseFromTheConsoleGivesItsPermitBack() throws Exception {
    NamedSemaphore licences = semafor.client().create("licences", 2);
    try (SemaforClient holder = named(semafor, "batch-job")) {
      Lease lease = holder.semaphore("licences").acquireLease(1, Duration.ofMinutes(10));
      assertThat(lease).isNotNull();
      open();
      select("licences");
      await().atMost(SHOWN_WITHIN).until(() -> rows("leases").size() == 1);
      browser().findElement(By.cssSelector("#leases button.release")).click();
      await()
          .atMost(SHOWN_WITHIN)
          .until(() -> browser().findElement(By.id("confirm")).isDisplayed());
      assertThat(text("confirm-text")).contains("Release lease");
      browser().findElement(By.id("confirm-ok")).click();
      await().atMost(SHOWN_WITHIN).until(() -> rows("leases").isEmpty());
      assertThat(licences.value()).isEqualTo(2);
    }
  }

  @Test
  void onAClusterTheLeadersConsoleShowsTheMembersAndAFollowersPointsToTheLeader(
      @org.junit.jupiter.api.io.TempDir Path dir) throws Exception {
    try (TestCluster cluster = TestCluster.startWithAdmin(3, dir);
        SemaforClient client = cluster.client(Duration.ofSeconds(10))) {
      client.create("printers", 2);
      int leader = cluster.awaitLeader();
      browser().get("http://127.0.0.1:" + cluster.adminPort(leader) + "/");
      await()
          .atMost(SHOWN_WITHIN)
          .until(() -> rows("semaphores"), r -> r.size() == 1 && r.get(0).get(1).equals("2"));
      await().atMost(SHOWN_WITHIN).until(() -> rows("members").size() == 3);
      assertThat(rows("members"))
          .filteredOn(r -> r.get(1).equals("leader"))
          .singleElement()
          .satisfies(r -> assertThat(r.get(0)).startsWith(cluster.id(leader)));
      assertThat(text("node")).contains("node " + cluster.id(leader) + ": leader");

      int follower = (leader + 1) % 3;
      browser().get("http://127.0.0.1:" + cluster.adminPort(follower) + "/");
      await().atMost(SHOWN_WITHIN).until(() -> text("problem").contains("This node is a follower"));
      assertThat(text("node")).contains("node " + cluster.id(follower) + ": follower");
    }
  }

  @Test
  void withAnAuthFileThePageAsksForATokenThenShowsWhatItsPrincipalMayRead(
      @org.junit.jupiter.api.io.TempDir Path dir) throws Exception {
    java.security.SecureRandom random = new java.security.SecureRandom();
    io.semafor.server.security.Tokens.Issued alice =
        io.semafor.server.security.Tokens.issue("alice", null, random);
    io.semafor.server.security.Tokens.Issued ops =
        io.semafor.server.security.Tokens.issue("ops", null, random);
    Path authFile = dir.resolve("auth.json");
    Files.writeString(
        authFile,
        new io.semafor.server.security.AuthFile(
                List.of(alice.entry(), ops.entry()),
                List.of(
                    new io.semafor.server.security.AuthFile.Rule("alice", "a/", List.of("read")),
                    new io.semafor.server.security.AuthFile.Rule(
                        "ops", "", List.of("read", "admin", "cluster"))))
            .toJson());
    io.semafor.server.SemaforServer server =
        io.semafor.server.SemaforServer.start(
            ServerConfig.builder()
                .port(0)
                .adminPort(0)
                .security(io.semafor.server.security.Security.of(authFile))
                .build());
    try (SemaforClient admin =
        SemaforClient.builder()
            .addresses("127.0.0.1:" + server.address().getPort())
            .token(ops.token())
            .connect()) {
      admin.create("a/x", 1);
      admin.create("b/y", 2);
      browser().get("http://127.0.0.1:" + server.adminAddress().getPort() + "/");
      await()
          .atMost(SHOWN_WITHIN)
          .until(() -> browser().findElement(By.id("token-dialog")).isDisplayed());
      browser().findElement(By.id("token")).sendKeys(alice.token());
      browser().findElement(By.id("token-ok")).click();
      await()
          .atMost(SHOWN_WITHIN)
          .until(() -> rows("semaphores"), r -> r.size() == 1 && r.get(0).get(0).equals("a/x"));
      assertThat(text("live-state")).isEqualTo("live");
      assertThat(text("node")).contains("'cluster' permission");
    } finally {
      server.close();
    }
  }

  @Test
  void aMemberTheLeaderCannotReachIsShownUnreachableWithHowLongItHasBeenSilent(
      @org.junit.jupiter.api.io.TempDir Path dir) throws Exception {
    try (TestCluster cluster = TestCluster.startWithAdmin(3, dir);
        SemaforClient client = cluster.client(Duration.ofSeconds(10))) {
      client.create("printers", 2);
      int leader = cluster.awaitLeader();
      int killed = (leader + 1) % 3;
      int alive = (leader + 2) % 3;
      browser().get("http://127.0.0.1:" + cluster.adminPort(leader) + "/");
      await().atMost(SHOWN_WITHIN).until(() -> rows("members").size() == 3);
      cluster.stopNode(killed);
      List<String> lost =
          await()
              .atMost(Duration.ofSeconds(30))
              .until(
                  () -> member(cluster.id(killed)),
                  r -> r.size() == 4 && r.get(1).equals("unreachable"));
      assertThat(lost.get(3)).matches("\\d+(\\.\\d)? (ms|s|min)( \\d+ s)?");
      assertThat(member(cluster.id(alive)).get(1)).isEqualTo("follower");
      screenshot("unreachable.png");
    }
  }

  /** The cells of the members table's row for {@code id} (empty if it has none). */
  private static List<String> member(String id) {
    return rows("members").stream().filter(r -> r.get(0).equals(id)).findFirst().orElse(List.of());
  }

  @Test
  void theWaitTimeHistogramsLabelsDoNotOverlapAndAreShownWhole() throws Exception {
    semafor.client().create("printers", 1);
    try (SemaforClient alice = named(semafor, "alice");
        SemaforClient bob = named(semafor, "bob")) {
      Permit held = alice.semaphore("printers").acquirePermit(1);
      CompletableFuture<Optional<Permit>> waiting =
          bob.semaphore("printers").acquirePermitAsync(1, Duration.ofMinutes(1));
      await()
          .atMost(SHOWN_WITHIN)
          .until(() -> semafor.client().semaphore("printers").info().waiters() == 1);
      held.close();
      waiting.get(10, TimeUnit.SECONDS).orElseThrow().close();
    }
    open();
    select("printers");
    await()
        .atMost(SHOWN_WITHIN)
        .until(() -> browser().findElements(By.cssSelector("#histogram .label")).size() == 17);
    screenshot("histogram.png");
    // [left, right, shown width, whole width] of each label, left to right
    @SuppressWarnings("unchecked")
    List<List<Number>> boxes =
        (List<List<Number>>)
            browser()
                .executeScript(
                    "return Array.from(document.querySelectorAll('#histogram .label')).map(l => {"
                        + " const r = l.getBoundingClientRect();"
                        + " return [r.left, r.right, l.clientWidth, l.scrollWidth]; })");
    for (int i = 0; i < boxes.size(); i++) {
      List<Number> box = boxes.get(i);
      assertThat(box.get(3).doubleValue())
          .as("label %d is cut", i)
          .isLessThanOrEqualTo(box.get(2).doubleValue());
      if (i > 0) {
        assertThat(box.get(0).doubleValue())
            .as("label %d overlaps the one before it", i)
            .isGreaterThanOrEqualTo(boxes.get(i - 1).get(1).doubleValue());
      }
    }
  }

  @Test
  void thePageSaysLiveOnlyOnceItShowsWhatTheServerSent() {
    semafor.client().create("printers", 2);
    // every state the page could be painted in while it says "live": the node line and the rows
    String observer =
        "window.__whileLive = [];"
            + " new MutationObserver(() => {"
            + "   const s = document.getElementById('live-state');"
            + "   if (s && s.textContent === 'live' && window.__whileLive.length < 100) {"
            + "     window.__whileLive.push(document.getElementById('node').textContent + '|'"
            + "       + document.querySelectorAll('#semaphores tbody tr').length); }"
            + " }).observe(document, {subtree: true, childList: true, characterData: true,"
            + " attributes: true});";
    Object script =
        browser()
            .executeCdpCommand(
                "Page.addScriptToEvaluateOnNewDocument", java.util.Map.of("source", observer))
            .get("identifier");
    try {
      open();
      @SuppressWarnings("unchecked")
      List<String> whileLive = (List<String>) browser().executeScript("return window.__whileLive");
      assertThat(whileLive)
          .isNotEmpty()
          .allSatisfy(
              painted -> {
                String node = painted.substring(0, painted.lastIndexOf('|'));
                assertThat(node).as(painted).contains("single node");
                assertThat(painted).as(painted).doesNotEndWith("|0");
              });
    } finally {
      browser()
          .executeCdpCommand(
              "Page.removeScriptToEvaluateOnNewDocument", java.util.Map.of("identifier", script));
    }
  }

  @Test
  void aLinkToOneSemaphoreOpensIt() {
    semafor.client().create("jobs/printers", 2);
    semafor.client().create("archive", 1);
    browser().get(page + "#/semaphore/jobs%2Fprinters");
    await()
        .atMost(SHOWN_WITHIN)
        .until(
            () ->
                text("detail-name").equals("jobs/printers")
                    && text("status-value").equals("2")
                    && browser().findElement(By.id("detail")).isDisplayed());
    assertThat(row("semaphores", "jobs/printers").getAttribute("class")).contains("selected");
  }

  @Test
  void selectingASemaphorePutsItsLinkInTheAddressBarAndBesideItsName() {
    semafor.client().create("jobs/printers", 2);
    open();
    select("jobs/printers");
    await()
        .atMost(SHOWN_WITHIN)
        .until(() -> browser().getCurrentUrl(), u -> u.endsWith("/#/semaphore/jobs%2Fprinters"));
    assertThat(browser().findElement(By.id("detail-link")).getAttribute("href"))
        .isEqualTo(page + "#/semaphore/jobs%2Fprinters");
  }
}
