package io.evenkeel.embedded;

import java.io.File;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.IntConsumer;

/**
 * One supervised child process: its stdout and stderr are appended to a log file (so a restart keeps the previous
 * run's lines), it can be waited on until a probe says it is ready, and it is stopped with SIGTERM, then SIGKILL
 * after a grace period. When it dies, {@link #tail} gives the end of its log for the report.
 *
 * <p>Each child runs in its own session ({@code setsid}, where the system has it): Ctrl-C in a terminal signals the
 * whole foreground process group, and the supervisor, not the terminal, must decide the order in which children
 * stop. {@code setsid} does not fork when its caller is not a group leader (a JVM's child never is), so the PID
 * seen here is the program's own.
 */
public final class ChildProcess implements AutoCloseable {
  private static final Path SETSID = Path.of("/usr/bin/setsid");

  /** Says whether a starting child is ready; may throw while it is not. */
  @FunctionalInterface
  public interface Probe {
    boolean ready() throws Exception;
  }

  private final String name;
  private final Process process;
  private final Path log;
  /** Completes with the exit code once the child exited and what was to run then ran. */
  private volatile CompletableFuture<Integer> exited;

  private ChildProcess(String name, Process process, Path log) {
    this.name = name;
    this.process = process;
    this.log = log;
    this.exited = process.onExit().thenApply(Process::exitValue);
  }

  /** Runs {@code action} with the exit code when the child exits: before {@link #onExit} completes or stop returns. */
  void whenExited(IntConsumer action) {
    exited = exited.thenApply(code -> {
      action.accept(code);
      return code;
    });
  }

  /** Starts {@code command} with its output appended to {@code log}. */
  public static ChildProcess start(String name, List<String> command, Path log) throws IOException {
    Files.createDirectories(log.toAbsolutePath().getParent());
    List<String> full = new ArrayList<>();
    if (Files.isExecutable(SETSID)) {
      full.add(SETSID.toString());
    }
    full.addAll(command);
    Files.writeString(log, "---- " + Instant.now() + " starting " + name + ": " + abbreviate(String.join(" ", command))
        + "\n", StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    Process process = new ProcessBuilder(full)
        .redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
        .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
        .start();
    return new ChildProcess(name, process, log);
  }

  /** Long classpaths would fill the log's tail: keep the start (java, flags) and the end (main class, arguments). */
  private static String abbreviate(String command) {
    return command.length() <= 600 ? command : command.substring(0, 200) + " ... " + command.substring(command.length() - 380);
  }

  /**
   * Polls {@code probe} until it answers true. Fails, with the tail of the log, when the child exits first or the
   * timeout passes (the child is then stopped).
   */
  public void awaitReady(Duration timeout, Probe probe) throws IOException, InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    Exception last = null;
    while (System.nanoTime() < deadline) {
      if (!process.isAlive()) {
        throw new IOException(name + " exited with code " + process.exitValue() + " while starting; " + tailReport(40));
      }
      try {
        if (probe.ready()) {
          return;
        }
      } catch (Exception notYet) {
        last = notYet;
      }
      Thread.sleep(100);
    }
    close();
    throw new IOException(name + " was not ready within " + timeout.toSeconds() + " s"
        + (last == null ? "" : " (last probe: " + last + ")") + "; " + tailReport(40));
  }

  public String name() {
    return name;
  }

  public long pid() {
    return process.pid();
  }

  public boolean isAlive() {
    return process.isAlive();
  }

  /** Completes when the child exits, with its exit code. */
  public CompletableFuture<Integer> onExit() {
    return exited;
  }

  public Path log() {
    return log;
  }

  /** The last {@code lines} lines of the log (read from its end, so a large log costs nothing). */
  public List<String> tail(int lines) throws IOException {
    Deque<String> out = new ArrayDeque<>();
    try (RandomAccessFile file = new RandomAccessFile(log.toFile(), "r")) {
      long start = Math.max(0, file.length() - 64L * 1024);
      byte[] bytes = new byte[(int) (file.length() - start)];
      file.seek(start);
      file.readFully(bytes);
      String[] all = new String(bytes, StandardCharsets.UTF_8).split("\n");
      for (int i = Math.max(start == 0 ? 0 : 1, all.length - lines); i < all.length; i++) {
        out.add(all[i]);
      }
    }
    return List.copyOf(out);
  }

  /** "last 40 lines of /path/x.log:\n..." for error messages. */
  public String tailReport(int lines) {
    try {
      return "last " + lines + " lines of " + log + ":\n" + String.join("\n", tail(lines));
    } catch (IOException e) {
      return "its log " + log + " is unreadable: " + e.getMessage();
    }
  }

  /**
   * SIGTERM, then SIGKILL if the child has not exited after {@code grace}. Returns its exit code, or -1 if even
   * SIGKILL did not end it within 10 s. Idempotent.
   */
  public int stop(Duration grace) throws InterruptedException {
    if (process.isAlive()) {
      process.destroy();
      if (!process.waitFor(grace.toMillis(), TimeUnit.MILLISECONDS)) {
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly();
        if (!process.waitFor(10, TimeUnit.SECONDS)) {
          return -1;
        }
      }
    }
    awaitExitActions();
    return process.exitValue();
  }

  /** SIGKILL, waiting (at most 30 s) until the child is gone. */
  public void kill() throws InterruptedException {
    process.destroyForcibly();
    if (process.waitFor(30, TimeUnit.SECONDS)) {
      awaitExitActions();
    }
  }

  private void awaitExitActions() throws InterruptedException {
    try {
      exited.get(30, TimeUnit.SECONDS);
    } catch (ExecutionException | TimeoutException e) {
      // An action that failed or hangs does not keep the child from being stopped.
    }
  }

  /** Sends the signal {@code name} ({@code STOP}, {@code CONT}, ...) with {@code kill}. */
  public void signal(String name) throws IOException, InterruptedException {
    Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(process.pid())).inheritIO().start();
    if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
      throw new IOException("kill -" + name + " " + process.pid() + " failed");
    }
  }

  /** {@link #stop} with a 30 s grace period. */
  @Override
  public void close() throws InterruptedException {
    stop(Duration.ofSeconds(30));
  }

  @Override
  public String toString() {
    return name + "(pid " + process.pid() + (process.isAlive() ? "" : ", exited " + process.exitValue()) + ")";
  }
}
