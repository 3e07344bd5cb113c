package io.evenkeel.shard.testing;

import io.evenkeel.schemas.shard.ShardServiceGrpc;
import io.evenkeel.shard.server.ShardServerMain;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** A shard server in its own JVM on a loopback port it picks, as in Lucene's NRT replication tests. */
public final class ShardServerProcess implements AutoCloseable {
  private final Process process;
  private final int port;
  private final ManagedChannel channel;
  private final Path log;

  private ShardServerProcess(Process process, int port, Path log) {
    this.process = process;
    this.port = port;
    this.log = log;
    this.channel = Grpc.newChannelBuilderForAddress("127.0.0.1", port, InsecureChannelCredentials.create())
        .maxInboundMessageSize(64 * 1024 * 1024)
        .build();
  }

  /** Starts a server with {@code args} (plus {@code --port 0}) and waits, at most 60 s, until it serves. */
  public static ShardServerProcess start(Path dataDir, String... args) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>(List.of(
        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-Xmx512m",
        "-Dorg.apache.avro.SERIALIZABLE_PACKAGES=io.evenkeel.schemas",
        "-cp", System.getProperty("java.class.path"),
        ShardServerMain.class.getName(),
        "--data-dir", dataDir.toString(),
        "--port", "0"));
    command.addAll(List.of(args));
    Files.createDirectories(dataDir);
    Path log = dataDir.resolve("server-" + System.nanoTime() + ".log");
    Process process = new ProcessBuilder(command).redirectError(log.toFile()).start();
    CompletableFuture<Integer> port = CompletableFuture.supplyAsync(() -> readPort(process));
    try {
      return new ShardServerProcess(process, port.get(60, TimeUnit.SECONDS), log);
    } catch (TimeoutException | java.util.concurrent.ExecutionException e) {
      process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      throw new IOException("shard server did not report its port; log:\n" + Files.readString(log), e);
    }
  }

  private static Integer readPort(Process process) {
    try {
      BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
      for (String line = out.readLine(); line != null; line = out.readLine()) {
        if (line.startsWith("PORT: ")) {
          return Integer.parseInt(line.substring("PORT: ".length()).strip());
        }
      }
      throw new IllegalStateException("shard server exited with " + process.waitFor() + " before reporting its port");
    } catch (IOException | InterruptedException e) {
      throw new IllegalStateException(e);
    }
  }

  public int port() {
    return port;
  }

  /** A blocking stub; give each call its own deadline with {@code withDeadlineAfter}. */
  public ShardServiceGrpc.ShardServiceBlockingStub stub() {
    return ShardServiceGrpc.newBlockingStub(channel);
  }

  /** SIGSTOP: the server keeps its connections but answers nothing, like a stalled machine, until {@link #resume}. */
  public void pause() throws IOException, InterruptedException {
    signal("STOP");
  }

  public void resume() throws IOException, InterruptedException {
    signal("CONT");
  }

  private void signal(String name) throws IOException, InterruptedException {
    Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(process.pid())).inheritIO().start();
    if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
      throw new IOException("kill -" + name + " " + process.pid() + " failed");
    }
  }

  /** kill -9: no shutdown hook, no closing commit. */
  public void kill() throws InterruptedException {
    process.destroyForcibly();
    process.waitFor(30, TimeUnit.SECONDS);
    channel.shutdownNow();
  }

  public String log() throws IOException {
    return Files.readString(log);
  }

  /** SIGTERM, letting the server commit and close. */
  @Override
  public void close() throws InterruptedException {
    channel.shutdownNow();
    if (process.isAlive()) {
      process.destroy();
      if (!process.waitFor(30, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
    }
  }
}
