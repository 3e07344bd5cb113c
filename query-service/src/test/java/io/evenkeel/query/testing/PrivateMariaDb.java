package io.evenkeel.query.testing;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A MariaDB server of the test's own, on a free loopback port with its own data directory, for machines where no
 * MariaDB answers on 127.0.0.1:3306 (STACK.md's recipe). It runs with {@code --skip-grant-tables}: any user connects
 * without a password, which is fine for a throw-away instance bound to loopback.
 */
final class PrivateMariaDb implements AutoCloseable {
  private final Process process;
  private final int port;

  private PrivateMariaDb(Process process, int port) {
    this.process = process;
    this.port = port;
  }

  static boolean installed() {
    return Files.isExecutable(Path.of("/usr/sbin/mariadbd"));
  }

  static PrivateMariaDb start(Path dir) throws IOException, InterruptedException {
    Path data = dir.resolve("data");
    Files.createDirectories(data);
    run(List.of("mariadb-install-db", "--no-defaults", "--datadir=" + data, "--user=root",
        "--auth-root-authentication-method=normal", "--skip-test-db"), dir.resolve("install.log"));
    int port;
    try (ServerSocket socket = new ServerSocket(0)) {
      port = socket.getLocalPort();
    }
    Process process = new ProcessBuilder("/usr/sbin/mariadbd", "--no-defaults", "--datadir=" + data,
        "--socket=" + dir.resolve("mariadb.sock"), "--port=" + port, "--bind-address=127.0.0.1", "--user=root",
        "--skip-grant-tables", "--skip-log-bin", "--innodb-buffer-pool-size=64M")
        .redirectErrorStream(true).redirectOutput(dir.resolve("mariadbd.log").toFile()).start();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (System.nanoTime() < deadline) {
      if (!process.isAlive()) {
        throw new IOException("mariadbd exited with " + process.exitValue() + "; log:\n"
            + Files.readString(dir.resolve("mariadbd.log")));
      }
      try (Socket socket = new Socket("127.0.0.1", port)) {
        if (socket.isConnected()) {
          return new PrivateMariaDb(process, port);
        }
      } catch (IOException notYet) {
        Thread.sleep(100);
      }
    }
    process.destroyForcibly();
    throw new IOException("mariadbd did not listen on port " + port + " within 30 s");
  }

  private static void run(List<String> command, Path log) throws IOException, InterruptedException {
    Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
      process.destroyForcibly();
      throw new IOException(String.join(" ", command) + " failed; log:\n" + Files.readString(log));
    }
  }

  String url() {
    return "jdbc:mariadb://127.0.0.1:" + port + "/?user=root";
  }

  @Override
  public void close() throws InterruptedException {
    process.destroy();
    if (!process.waitFor(30, TimeUnit.SECONDS)) {
      process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    }
  }
}
