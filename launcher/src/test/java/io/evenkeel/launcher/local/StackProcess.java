package io.evenkeel.launcher.local;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/** {@code bin/evenkeel} run as a user runs it, its output collected line by line. */
final class StackProcess implements AutoCloseable {
  final Process process;
  final List<String> output = new CopyOnWriteArrayList<>();
  private final List<String> arguments;

  private StackProcess(Process process, List<String> arguments) {
    this.process = process;
    this.arguments = arguments;
    Thread reader = new Thread(() -> {
      try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(),
          StandardCharsets.UTF_8))) {
        for (String line = in.readLine(); line != null; line = in.readLine()) {
          output.add(line);
        }
      } catch (IOException e) {
        output.add("(reading the launcher's output failed: " + e + ")");
      }
    }, "stack-output");
    reader.setDaemon(true);
    reader.start();
  }

  /** Starts {@code bin/evenkeel args...} in {@code dir}. */
  static StackProcess start(Path dir, String... args) throws IOException {
    return new StackProcess(EvenkeelCommand.processBuilder(dir, args).start(), List.of(args));
  }

  /** Waits until a line of the output contains {@code text}; fails with the output if it does not come. */
  void awaitOutput(String text, int seconds) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    while (output.stream().noneMatch(l -> l.contains(text))) {
      if (System.nanoTime() > deadline || !process.isAlive()) {
        throw new AssertionError("no '" + text + "' from the launcher" + (process.isAlive() ? " within " + seconds
            + " s" : " (it exited with " + process.exitValue() + ")") + "; output:\n" + String.join("\n", output));
      }
      Thread.sleep(200);
    }
  }

  /**
   * The launcher's output and the last {@code lines} lines of each process log (under the data directory it printed
   * at start), for a failure's report.
   */
  String report(int lines) {
    StringBuilder report = new StringBuilder("bin/evenkeel ").append(String.join(" ", arguments))
        .append(process.isAlive() ? " (running)" : " (exited with " + process.exitValue() + ")")
        .append("; its output:\n");
    output.forEach(line -> report.append("  ").append(line).append('\n'));
    Path logs = output.stream().filter(l -> l.startsWith("evenkeel local: data in ") && l.contains(", logs in "))
        .map(l -> Path.of(l.substring(l.indexOf(", logs in ") + ", logs in ".length()))).findFirst().orElse(null);
    if (logs == null || !Files.isDirectory(logs)) {
      return report.append("(no process logs: the launcher printed no log directory)").toString();
    }
    try (Stream<Path> files = Files.list(logs)) {
      for (Path log : files.filter(Files::isRegularFile).sorted().toList()) {
        List<String> text = new String(Files.readAllBytes(log), StandardCharsets.UTF_8).lines().toList();
        report.append("--- the last ").append(Math.min(lines, text.size())).append(" of ").append(text.size())
            .append(" lines of ").append(log).append(":\n");
        text.subList(Math.max(0, text.size() - lines), text.size())
            .forEach(line -> report.append("  ").append(line).append('\n'));
      }
    } catch (IOException e) {
      report.append("(reading the logs in ").append(logs).append(" failed: ").append(e).append(")\n");
    }
    return report.toString();
  }

  /** Sends the launcher SIGINT, as Ctrl-C in its terminal does; waits for {@code kill}, not for the launcher. */
  void sendSigint() throws IOException, InterruptedException {
    new ProcessBuilder("kill", "-INT", Long.toString(process.pid())).start().waitFor(10, TimeUnit.SECONDS);
  }

  /** Kills the launcher and everything it started. */
  @Override
  public void close() throws InterruptedException {
    if (process.isAlive()) {
      process.descendants().forEach(ProcessHandle::destroyForcibly);
      process.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
    }
  }
}
