package dev.basalt.web;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The page in a real browser: Debian's headless Chromium driven through its ChromeDriver (WebDriver). It loads,
 * takes pasted assembly, predicts, shows the prediction, the instruction table as a heat map and the pipeline
 * trace, keeps a permalink that predicts again when opened, and shows a bad input's error with its line and column.
 * Screenshots go to target/ (and, with -Dbasalt.screenshots=DIR, to DIR, as docs/ holds them).
 */
class PageBrowserTest {

    private static final Path CHROMIUM = Path.of("/usr/bin/chromium");
    private static final Path DRIVER = Path.of("/usr/bin/chromedriver");

    private static WebServer server;
    private static WebDriver browser;
    private static Path profile;

    @BeforeAll
    static void start() throws Exception {
        Assumptions.assumeTrue(Files.isExecutable(CHROMIUM) && Files.isExecutable(DRIVER),
                "Chromium and its driver are not installed (apt-get install chromium chromium-driver)");
        server = WebServer.start("127.0.0.1", 0, WebServer.Limits.defaults());
        profile = Files.createTempDirectory("basalt-chromium");
        ChromeOptions options = new ChromeOptions();
        options.setBinary(CHROMIUM.toFile());
        options.addArguments("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--disable-dev-shm-usage", "--window-size=1400,1800", "--user-data-dir=" + profile);
        ChromeDriverService service = new ChromeDriverService.Builder().usingDriverExecutable(DRIVER.toFile())
                .usingAnyFreePort().build();
        browser = new ChromeDriver(service, options);
    }

    @AfterAll
    static void stop() throws Exception {
        if (browser != null) {
            browser.quit();
        }
        if (server != null) {
            server.close();
        }
    }

    private static String url() {
        return "http://127.0.0.1:" + server.port() + "/";
    }

    private static WebDriverWait await() {
        return new WebDriverWait(browser, Duration.ofSeconds(30));
    }

    /** Opens the page, pastes {@code text} once its choices have loaded, and presses Predict. */
    private static void predict(String text) {
        browser.get(url());
        await().until(ExpectedConditions.presenceOfElementLocated(By.id("cpu-haswell")));
        ((JavascriptExecutor) browser).executeScript("document.getElementById('code').value = arguments[0];", text);
        browser.findElement(By.id("predict")).click();
    }

    private static void shoot(String name) throws Exception {
        byte[] png = ((TakesScreenshot) browser).getScreenshotAs(OutputType.BYTES);
        Path target = Path.of("target", name);
        Files.createDirectories(target.getParent());
        Files.write(target, png);
        String dir = System.getProperty("basalt.screenshots");
        if (dir != null) {
            Files.write(Path.of(dir, name), png);
        }
    }

    @Test
    void pastePredictAndSeeTheHeatMapTheTraceAndAPermalink() throws Exception {
        // add rax, rbx; imul rax, rax as a loop: a 1 + 3 = 4-cycle chain an iteration on Haswell
        predict("loop:\n  add rax, rbx\n  imul rax, rax\n  dec rcx\n  jnz loop\n");
        await().until(ExpectedConditions.presenceOfElementLocated(By.cssSelector(".block td.cycles")));
        WebElement cycles = browser.findElement(By.cssSelector(".block td.cycles"));
        assertEquals("4.00", cycles.getText());
        assertTrue(browser.findElement(By.cssSelector(".bottleneck")).getText()
                .startsWith("bottleneck: dependency chain: 4.00"), browser.findElement(By.cssSelector(".bottleneck")).getText());
        // the heat map: shaded port cells; their last row is the port table
        List<WebElement> cells = browser.findElements(By.cssSelector("table.heat td.port"));
        assertFalse(cells.isEmpty());
        assertTrue(cells.stream().anyMatch(c -> c.getAttribute("style").contains("rgba(220, 53, 69")),
                "shaded cells");
        // the trace: one row an instance, stages coloured
        List<WebElement> instances = browser.findElements(By.cssSelector(".trace tr.instance"));
        assertTrue(instances.size() >= 8, "trace rows: " + instances.size());
        assertFalse(browser.findElements(By.cssSelector(".trace td.stage-E")).isEmpty());
        assertFalse(browser.findElements(By.cssSelector(".trace td.stage-R")).isEmpty());
        shoot("serve-predict.png");
        // the permalink predicts again when opened
        String link = browser.getCurrentUrl();
        assertTrue(link.contains("#t="), link);
        browser.get("about:blank");
        browser.get(link);
        await().until(ExpectedConditions.presenceOfElementLocated(By.cssSelector(".block td.cycles")));
        assertEquals("4.00", browser.findElement(By.cssSelector(".block td.cycles")).getText());
    }

    @Test
    void aBadInputShowsItsErrorWithLineAndColumn() throws Exception {
        predict("add rax, rbx\nadd eax, 0x123456789\n");
        await().until(ExpectedConditions.visibilityOfElementLocated(By.id("error")));
        String error = browser.findElement(By.id("error")).getText();
        assertTrue(error.contains("line 2, column 1") && error.contains("does not fit in 32 bits"), error);
        shoot("serve-error.png");
    }
}
