package io.evenkeel.embedded;

import com.google.protobuf.ByteString;
import io.evenkeel.cluster.client.ClusterClient;
import io.evenkeel.cluster.placement.ShardAddress;
import io.evenkeel.schemas.ShardWriteBatch;
import io.evenkeel.schemas.TransactionLogChange;
import io.evenkeel.schemas.codec.SingleObjectCodec;
import io.evenkeel.schemas.shard.ShardServiceGrpc;
import io.evenkeel.schemas.shard.WriteRequest;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A shard server in its own JVM, as the local stack and the tests run it: a supervised {@link ChildProcess} with its
 * log, ready once the server prints {@code PORT: <n>} (the port it serves on; with {@code --port 0}, the one it
 * picked).
 */
public final class ShardServerProcess implements AutoCloseable {
  /** The shard server's main class, also the Main-Class of shard-server.jar. */
  public static final String MAIN_CLASS = "io.evenkeel.shard.server.ShardServerMain";
  private static final SingleObjectCodec<ShardWriteBatch> BATCHES = SingleObjectCodec.of(ShardWriteBatch.class);
  private static final Pattern PORT_LINE = Pattern.compile("(?m)^PORT: (\\d+)$");

  private final ChildProcess process;
  /** Where this run's lines start in the log, which restarts append to. */
  private final long logStart;
  private final ClusterClient cluster = new ClusterClient();
  private final AtomicLong batchSequence = new AtomicLong();
  private volatile int port;

  private ShardServerProcess(ChildProcess process, long logStart) {
    this.process = process;
    this.logStart = logStart;
  }

  /**
   * Starts {@code java} (a command up to its main class or jar) with {@code --data-dir dataDir --port port} and
   * {@code args}; returns while it starts: {@link #awaitReady} waits.
   */
  public static ShardServerProcess launch(String name, JavaCommand java, Path dataDir, int port, Path log,
      List<String> args) throws IOException {
    long logStart = Files.exists(log) ? Files.size(log) : 0;
    java.args("--data-dir", dataDir.toString(), "--port", Integer.toString(port)).args(args);
    return new ShardServerProcess(java.start(name, log), logStart);
  }

  /**
   * For tests: a server from this JVM's classpath on a port it picks, with its log in {@code dataDir}; returns once it
   * serves (at most 60 s).
   */
  public static ShardServerProcess start(Path dataDir, String... args) throws IOException, InterruptedException {
    return launch(dataDir, args).awaitReady(Duration.ofSeconds(60));
  }

  /**
   * For tests: the same, returning while it starts, so that several servers (and the test's other parts) start
   * together; {@link #awaitReady} waits.
   */
  public static ShardServerProcess launch(Path dataDir, String... args) throws IOException {
    Files.createDirectories(dataDir);
    // Jars alone: the server needs none of a test's own classes, and without their directory it gets an archive.
    JavaCommand java = JavaCommand.mainClass(MAIN_CLASS).jarsOnly().heap("512m")
        .jvmOption("-Dorg.apache.avro.SERIALIZABLE_PACKAGES=io.evenkeel.schemas");
    return launch("shard-server", java, dataDir, 0, dataDir.resolve("shard-server.log"), List.of(args));
  }

  /** Waits until the server serves; fails with the tail of its log if it exits or the timeout passes first. */
  public ShardServerProcess awaitReady(Duration timeout) throws IOException, InterruptedException {
    process.awaitReady(timeout, () -> {
      Matcher line = PORT_LINE.matcher(log());
      if (line.find()) {
        port = Integer.parseInt(line.group(1));
      }
      return port > 0;
    });
    return this;
  }

  /** The port it serves on, once {@link #awaitReady} returned. */
  public int port() {
    return port;
  }

  public ShardAddress address() {
    return new ShardAddress("127.0.0.1", port);
  }

  /** A blocking stub; give each call its own deadline with {@code withDeadlineAfter}. */
  public ShardServiceGrpc.ShardServiceBlockingStub stub() {
    return cluster.blockingStub(address());
  }

  /**
   * Writes {@code changes} to {@code shard} as one batch of a test sender (its sequence numbers are this process's)
   * and returns once it is acknowledged: searchable too, with {@code waitForRefresh}.
   */
  public void write(int shard, List<TransactionLogChange> changes, boolean waitForRefresh) {
    ShardWriteBatch batch = ShardWriteBatch.newBuilder().setShard(shard)
        .setSender("test-" + ProcessHandle.current().pid()).setBatchSequence(batchSequence.getAndIncrement())
        .setSentTime(System.currentTimeMillis()).setWaitForRefresh(waitForRefresh).setChanges(changes).build();
    stub().withDeadlineAfter(60, TimeUnit.SECONDS).write(WriteRequest.newBuilder().setShard(shard)
        .setBatch(ByteString.copyFrom(BATCHES.encode(batch))).build());
  }

  public ChildProcess process() {
    return process;
  }

  /** SIGSTOP: the server keeps its connections but answers nothing, like a stalled machine, until {@link #resume}. */
  public void pause() throws IOException, InterruptedException {
    process.signal("STOP");
  }

  public void resume() throws IOException, InterruptedException {
    process.signal("CONT");
  }

  /** SIGKILL: no shutdown hook, no closing commit. */
  public void kill() throws InterruptedException {
    cluster.close();
    process.kill();
  }

  /** This run's lines of the log. */
  public String log() throws IOException {
    try (RandomAccessFile file = new RandomAccessFile(process.log().toFile(), "r")) {
      byte[] bytes = new byte[(int) Math.max(0, file.length() - logStart)];
      file.seek(logStart);
      file.readFully(bytes);
      return new String(bytes, StandardCharsets.UTF_8);
    }
  }

  /** SIGTERM, letting the server commit and close (SIGKILL after 30 s). */
  @Override
  public void close() throws InterruptedException {
    cluster.close();
    process.close();
  }
}
