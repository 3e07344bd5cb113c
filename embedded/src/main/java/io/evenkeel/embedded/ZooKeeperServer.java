package io.evenkeel.embedded;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Properties;

/**
 * A real standalone ZooKeeper server in its own JVM ({@code org.apache.zookeeper.server.ZooKeeperServerMain zoo.cfg}
 * from the zookeeper jar on this JVM's classpath), on a fixed loopback port, with its data in a directory that a
 * restart reuses; standalone, or a member of a {@link ZooKeeperEnsemble}.
 */
public final class ZooKeeperServer implements AutoCloseable {
  private static final String MAIN = "org.apache.zookeeper.server.ZooKeeperServerMain";
  /** An ensemble's member: ZooKeeperServerMain ignores the {@code server.N} lines and serves alone. */
  private static final String QUORUM_MAIN = "org.apache.zookeeper.server.quorum.QuorumPeerMain";

  private final ChildProcess process;
  private final int port;

  private ZooKeeperServer(ChildProcess process, int port) {
    this.process = process;
    this.port = port;
  }

  /**
   * Writes {@code dir/zoo.cfg}, starts the server with its output appended to {@code log}, and waits (at most
   * {@code readyTimeout}) until it answers {@code ruok}.
   */
  public static ZooKeeperServer start(Path dir, int port, Path log, Duration readyTimeout)
      throws IOException, InterruptedException {
    ZooKeeperServer server = launch(dir, port, log, 0, new Properties());
    server.process.awaitReady(readyTimeout, () -> "imok".equals(fourLetterWord(port, "ruok")));
    return server;
  }

  /**
   * Writes {@code dir/zoo.cfg} with {@code more} settings (an ensemble's {@code server.N} lines) and, for a member
   * of an ensemble ({@code myId} above 0), its {@code myid}; starts the server without waiting for it.
   */
  static ZooKeeperServer launch(Path dir, int port, Path log, int myId, Properties more) throws IOException {
    if (port <= 0 || port > 65535) {
      throw new IllegalArgumentException("zookeeper port must be in [1, 65535]; got: " + port);
    }
    Files.createDirectories(dir.resolve("data"));
    if (myId > 0) {
      Files.writeString(dir.resolve("data").resolve("myid"), Integer.toString(myId));
    }
    Properties config = new Properties();
    config.setProperty("tickTime", "2000");
    config.setProperty("dataDir", dir.resolve("data").toAbsolutePath().toString());
    config.setProperty("clientPort", Integer.toString(port));
    config.setProperty("clientPortAddress", "127.0.0.1");
    // The admin server would take port 8080 on every host; the probe below uses the four-letter words instead.
    config.setProperty("admin.enableServer", "false");
    config.setProperty("4lw.commands.whitelist", "ruok,srvr");
    config.setProperty("autopurge.snapRetainCount", "3");
    config.setProperty("autopurge.purgeInterval", "1");
    config.putAll(more);
    Path cfg = dir.resolve("zoo.cfg");
    try (OutputStream out = Files.newOutputStream(cfg)) {
      config.store(out, "Evenkeel standalone ZooKeeper");
    }
    ChildProcess process = JavaCommand.mainClass(myId > 0 ? QUORUM_MAIN : MAIN).jarsOnly().heap("256m").quickCompiler()
        .jvmOption("-Dorg.slf4j.simpleLogger.defaultLogLevel=warn")
        .args(cfg.toString()).start(myId > 0 ? "zookeeper-" + myId : "zookeeper", log);
    return new ZooKeeperServer(process, port);
  }

  /** The server's mode once it serves requests ({@code leader}, {@code follower}, {@code standalone}); else null. */
  String mode() {
    try {
      return fourLetterWord(port, "srvr").lines().filter(line -> line.startsWith("Mode: "))
          .map(line -> line.substring("Mode: ".length()).strip()).findFirst().orElse(null);
    } catch (IOException e) {
      return null;
    }
  }

  /** Sends a four-letter command and returns the answer. */
  static String fourLetterWord(int port, String word) throws IOException {
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress("127.0.0.1", port), 1_000);
      socket.setSoTimeout(2_000);
      socket.getOutputStream().write(word.getBytes(StandardCharsets.US_ASCII));
      socket.getOutputStream().flush();
      InputStream in = socket.getInputStream();
      return new String(in.readAllBytes(), StandardCharsets.US_ASCII).strip();
    }
  }

  public String connectString() {
    return "127.0.0.1:" + port;
  }

  public ChildProcess process() {
    return process;
  }

  @Override
  public void close() throws InterruptedException {
    process.stop(Duration.ofSeconds(20));
  }
}
