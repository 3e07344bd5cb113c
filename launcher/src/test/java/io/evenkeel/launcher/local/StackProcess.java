package io.evenkeel.launcher.local;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/** {@code bin/evenkeel} run as a user runs it, its output collected line by line. */
final class StackProcess implements AutoCloseable {
  static final Path REPO = Path.of(System.getProperty("user.dir")).getParent();

  final Process process;
  final List<String> output = new CopyOnWriteArrayList<>();

  private StackProcess(Process process) {
    this.process = process;
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
    List<String> command = new ArrayList<>(List.of(REPO.resolve("bin/evenkeel").toString()));
    command.addAll(List.of(args));
    return new StackProcess(new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start());
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

  /** Kills the launcher and everything it started. */
  @Override
  public void close() throws InterruptedException {
    if (process.isAlive()) {
      process.descendants().forEach(ProcessHandle::destroyForcibly);
      process.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
    }
  }
}
