package io.evenkeel.launcher.local;

import io.evenkeel.launcher.cli.UserError;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/**
 * The repository the launcher runs from ({@code -Devenkeel.home}, set by {@code bin/evenkeel}) and the jars the
 * build left there: the stack starts the same jars and main classes that a real deployment runs.
 */
public record EvenkeelHome(Path root) {
  public static final String BUILD_HINT = "build first: ./mvnw -B -q -DskipTests package";

  public static EvenkeelHome fromSystemProperty() {
    String home = System.getProperty("evenkeel.home");
    if (home == null) {
      throw new UserError("evenkeel.home is not set; run the launcher through bin/evenkeel");
    }
    return new EvenkeelHome(Path.of(home).toAbsolutePath().normalize());
  }

  public Path shardServerJar() {
    return require(root.resolve("shard-server/target/shard-server.jar"));
  }

  public Path queryServiceJar() {
    return require(root.resolve("query-service/target/query-service.jar"));
  }

  /** The launcher's own classpath (the replayer runs on it): its jar and target/lib/*. */
  public String launcherClasspath() {
    return require(root.resolve("launcher/target/evenkeel-launcher.jar")) + ":"
        + require(root.resolve("launcher/target/lib")) + "/*";
  }

  /** The ingest job's classpath for a local Flink environment: its jar and target/lib/*. */
  public String ingestJobClasspath() {
    return moduleClasspath("ingest-job", "evenkeel-ingest-job");
  }

  /** The CDC runner's classpath: its jar and target/lib/*. */
  public String cdcClasspath() {
    return moduleClasspath("cdc", "evenkeel-cdc");
  }

  /** A module's {@code <artifact>-<version>.jar} (not a shaded or test jar) and its target/lib/*. */
  private String moduleClasspath(String module, String artifact) {
    Path target = root.resolve(module + "/target");
    Path lib = require(target.resolve("lib"));
    try (Stream<Path> jars = Files.list(target)) {
      List<Path> found = jars.filter(p -> p.getFileName().toString().matches(artifact + "-[^-]+(-SNAPSHOT)?\\.jar"))
          .toList();
      if (found.size() != 1) {
        throw new UserError("expected one " + artifact + "-<version>.jar in " + target + ", found " + found + "; "
            + BUILD_HINT);
      }
      return found.get(0) + ":" + lib + "/*";
    } catch (IOException e) {
      throw new UserError("cannot list " + target + ": " + e.getMessage() + "; " + BUILD_HINT, e);
    }
  }

  private static Path require(Path path) {
    if (!Files.exists(path)) {
      throw new UserError("missing " + path + "; " + BUILD_HINT);
    }
    return path;
  }
}
