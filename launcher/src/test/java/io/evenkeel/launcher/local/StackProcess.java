package io.evenkeel.launcher.local;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
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

  /**
   * A base port whose stack ports (+0..+4, +10.. for {@code servers}) are all free now, below Linux's ephemeral range
   * (32768 and up): there, a client connection of this machine could take one before the stack binds it.
   */
  static int freeBasePort(int servers) throws IOException {
    Random random = new Random();
    for (int attempt = 0; attempt < 50; attempt++) {
      int base = 20_000 + random.nextInt(12_700);
      if (free(base, 5) && free(base + 10, servers)) {
        return base;
      }
    }
    throw new IOException("no free range of stack ports found");
  }

  private static boolean free(int from, int count) {
    for (int port = from; port < from + count; port++) {
      try (ServerSocket socket = new ServerSocket(port)) {
        socket.setReuseAddress(true);
      } catch (IOException taken) {
        return false;
      }
    }
    return true;
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
