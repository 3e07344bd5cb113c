package io.evenkeel.launcher.local;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** {@code bin/evenkeel} run as a user runs it, and the rows the stack tests load with it. */
final class EvenkeelCommand {
  /** A finished run: its exit code and its output, errors interleaved. */
  record Run(int exitCode, String output) {}

  private static final Path REPO = Path.of(System.getProperty("user.dir")).getParent();

  private EvenkeelCommand() {}

  /** {@code bin/evenkeel args}, to start in {@code dir}, its errors interleaved with its output. */
  static ProcessBuilder processBuilder(Path dir, String... args) {
    List<String> command = new ArrayList<>(List.of(REPO.resolve("bin/evenkeel").toString()));
    command.addAll(List.of(args));
    return new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true);
  }

  /** Runs {@code bin/evenkeel args} in {@code dir} and waits (at most 3 minutes) for it to end. */
  static Run run(Path dir, String... args) throws Exception {
    Process process = processBuilder(dir, args).start();
    String text = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(process.waitFor(3, TimeUnit.MINUTES)).isTrue();
    return new Run(process.exitValue(), text);
  }

  /** The rows of {@code query} through {@code evenkeel sql --json}, presenting {@code keyFile} unless it is null. */
  static JsonNode sqlRows(Path dir, Path data, Path keyFile, String query) throws Exception {
    List<String> args = new ArrayList<>(List.of("sql", "--json", "--data-dir", data.toString()));
    if (keyFile != null) {
      args.addAll(List.of("--key-file", keyFile.toString()));
    }
    args.add(query);
    Run run = run(dir, args.toArray(String[]::new));
    assertThat(run.exitCode()).as(run.output()).isEqualTo(0);
    return new ObjectMapper().readTree(run.output()).get("rows");
  }

  /** A JSON Lines row of {@code tenant}; {@code revision} changes its status, title and quantity. */
  static String row(long tenant, long row, int revision) {
    return String.format("{\"tenant_id\": %d, \"row_id\": %d, \"created_time\": %d, \"status\": %d, "
            + "\"seller_nick\": \"seller-%d\", \"title\": \"item %d rev %d\", \"price\": \"%d.%02d\", "
            + "\"quantity\": %d}",
        tenant, row, 1_700_000_000_000L + row, (row + revision) % 5, tenant, row, revision, row % 1000, row % 100,
        1 + revision + row % 7);
  }
}
