package io.evenkeel.query.console;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Map;
import java.util.Optional;

/**
 * The console's page, script and style sheet: plain files in this package's resources, read once, served as they are
 * (no build step). The page is the same for everyone; what it shows comes from the API calls it makes with the key
 * the operator types in.
 */
public final class ConsoleAssets {
  /** A file to serve, with its content type. */
  public record Asset(byte[] bytes, String contentType) {}

  private static final Map<String, String> FILES = Map.of(
      "index.html", "text/html; charset=utf-8",
      "console.js", "text/javascript; charset=utf-8",
      "console.css", "text/css; charset=utf-8");

  private final Map<String, Asset> assets;

  public ConsoleAssets() {
    this.assets = Map.copyOf(FILES.entrySet().stream().collect(java.util.stream.Collectors.toMap(
        Map.Entry::getKey, e -> new Asset(read(e.getKey()), e.getValue()))));
  }

  /** The asset at {@code path} ({@code /console}, {@code /console/console.js}, ...), if it is one. */
  public Optional<Asset> find(String path) {
    if (path.equals("/") || path.equals("/console") || path.equals("/console/")) {
      return Optional.of(assets.get("index.html"));
    }
    return path.startsWith("/console/") ? Optional.ofNullable(assets.get(path.substring("/console/".length())))
        : Optional.empty();
  }

  private static byte[] read(String name) {
    try (InputStream in = ConsoleAssets.class.getResourceAsStream(name)) {
      if (in == null) {
        throw new IllegalStateException("the console's " + name + " is missing from the jar");
      }
      return in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the console's " + name, e);
    }
  }
}
