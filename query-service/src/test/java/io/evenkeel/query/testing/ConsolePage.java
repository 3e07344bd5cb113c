package io.evenkeel.query.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.function.Predicate;
import org.openqa.selenium.By;
import org.openqa.selenium.Keys;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The query service's web console in a real headless Chromium (Debian's {@code chromium} driven through its {@code
 * chromium-driver}, as {@code .ci/run} installs them), read and typed into as an operator would.
 */
public final class ConsolePage implements AutoCloseable {
  private static final Path CHROMIUM = Path.of("/usr/bin/chromium");
  private static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");

  private final ChromeDriver driver;

  private ConsolePage(ChromeDriver driver) {
    this.driver = driver;
  }

  /** Opens {@code url} (the service's {@code /console}) in a new browser with its own profile under {@code dir}. */
  public static ConsolePage open(String url, Path dir) throws IOException {
    if (!Files.isExecutable(CHROMIUM) || !Files.isExecutable(CHROMEDRIVER)) {
      throw new IllegalStateException("the console's browser tests need " + CHROMIUM + " and " + CHROMEDRIVER
          + ": apt-get install chromium chromium-driver (.ci/run does)");
    }
    ChromeOptions options = new ChromeOptions();
    options.setBinary(CHROMIUM.toFile());
    // Without the network flags Chromium calls Google's hosts at start, which this closed network refuses.
    options.addArguments("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
        "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--window-size=1500,1900",
        "--user-data-dir=" + Files.createDirectories(dir.resolve("chromium-profile")));
    ChromeDriverService service = new ChromeDriverService.Builder()
        .usingDriverExecutable(CHROMEDRIVER.toFile())
        .usingAnyFreePort()
        .withLogFile(dir.resolve("chromedriver.log").toFile())
        // A cold driver on a busy machine: Selenium's own default (20 s) has been too short to start.
        .withTimeout(Duration.ofMinutes(2))
        .build();
    ChromeDriver driver = new ChromeDriver(service, options);
    try {
      driver.get(url);
      return new ConsolePage(driver);
    } catch (RuntimeException e) {
      driver.quit();
      throw e;
    }
  }

  public ChromeDriver driver() {
    return driver;
  }

  /** Types {@code key} into the API-key field and uses it. */
  public void useKey(String key) {
    WebElement field = driver.findElement(By.id("api-key"));
    field.clear();
    field.sendKeys(key, Keys.ENTER);
  }

  /** Types {@code sql} into the box, presses Run (or Explain), and waits for the answer: its rows as texts. */
  public List<List<String>> run(String sql, boolean explain) {
    WebElement box = driver.findElement(By.id("sql"));
    box.clear();
    box.sendKeys(sql);
    String before = answers();
    driver.findElement(By.id(explain ? "explain" : "run")).click();
    waitUntil(page -> !answers().equals(before), Duration.ofSeconds(120), "the answer to " + sql);
    return rows("sql-result");
  }

  /** How many answers the SQL box has shown. */
  private String answers() {
    return String.valueOf(driver.findElement(By.id("sql-result")).getDomAttribute("data-answers"));
  }

  /** The SQL box's result heading: "3 rows in 12 ms, 8 of 8 shards". */
  public String sqlMeta() {
    return text("sql-meta");
  }

  /** The error the SQL box shows, or "". */
  public String sqlError() {
    return text("sql-error");
  }

  /** The column names of the last answer. */
  public List<String> sqlColumns() {
    return cells("#sql-result thead tr").get(0);
  }

  /**
   * The rows of a table's body ({@code hot-tenants}, {@code servers}, {@code shards}, {@code rules}) as texts, read at
   * once: the page redraws its tables every few seconds.
   */
  public List<List<String>> rows(String table) {
    return cells("#" + table + " tbody tr");
  }

  @SuppressWarnings("unchecked")
  private List<List<String>> cells(String rowSelector) {
    return (List<List<String>>) driver.executeScript("return Array.from(document.querySelectorAll(arguments[0]))"
        + ".map(tr => Array.from(tr.cells).map(cell => cell.innerText.trim()))", rowSelector);
  }

  /** An element's visible text ("" when hidden). */
  public String text(String id) {
    return driver.findElement(By.id(id)).getText();
  }

  public void waitUntil(Predicate<ConsolePage> condition, Duration timeout, String what) {
    try {
      new WebDriverWait(driver, timeout, Duration.ofMillis(200)).until(d -> condition.test(this));
    } catch (org.openqa.selenium.TimeoutException e) {
      throw new AssertionError("the console did not show " + what + " within " + timeout.toSeconds() + " s", e);
    }
  }

  /** Saves what the browser shows (the whole page) as a PNG. */
  public void screenshot(Path file) throws IOException {
    Files.createDirectories(file.toAbsolutePath().getParent());
    Files.write(file, driver.getScreenshotAs(OutputType.BYTES));
  }

  @Override
  public void close() {
    driver.quit();
  }
}
