package io.evenkeel.embedded;

import java.io.IOException;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A MariaDB server of its own (the machine's {@code mariadbd}), on a free loopback port with its own data directory,
 * for tests and benchmarks that must not touch the machine's databases. With a binlog it is a CDC source:
 * {@code binlog_format=ROW}, {@code binlog_row_image=FULL}, server id 1. It has two users on TCP: {@link #ADMIN}
 * (every privilege) and {@link #CDC} with exactly the grants Debezium needs (docs/CDC.md).
 */
public final class MariaDbServer implements AutoCloseable {
  /** User and password of the administrator. */
  public static final String ADMIN = "evenkeel";
  /** User and password of the capture user. */
  public static final String CDC = "cdc";

  private final Process process;
  private final int port;
  private final Path dir;

  private MariaDbServer(Process process, int port, Path dir) {
    this.process = process;
    this.port = port;
    this.dir = dir;
  }

  /** Whether {@code mariadbd} is installed here. */
  public static boolean installed() {
    return Files.isExecutable(Path.of("/usr/sbin/mariadbd"));
  }

  /** Starts a server with its files under {@code dir}; with {@code binlog}, a row-based binlog. */
  public static MariaDbServer start(Path dir, boolean binlog) throws IOException, InterruptedException {
    Path data = dir.resolve("data");
    Files.createDirectories(data);
    run(List.of("mariadb-install-db", "--no-defaults", "--datadir=" + data, "--user=" + user(),
        "--auth-root-authentication-method=socket", "--skip-test-db"), dir.resolve("install.log"));
    int port = FreePorts.one();
    List<String> command = new ArrayList<>(List.of("/usr/sbin/mariadbd", "--no-defaults", "--datadir=" + data,
        "--socket=" + dir.resolve("mariadb.sock"), "--port=" + port, "--bind-address=127.0.0.1",
        "--user=" + user(), "--innodb-buffer-pool-size=64M", "--skip-name-resolve"));
    if (binlog) {
      command.addAll(List.of("--server-id=1", "--log-bin=" + dir.resolve("binlog"), "--binlog-format=ROW",
          "--binlog-row-image=FULL"));
    } else {
      command.add("--skip-log-bin");
    }
    Process process = new ProcessBuilder(command).redirectErrorStream(true)
        .redirectOutput(dir.resolve("mariadbd.log").toFile()).start();
    MariaDbServer server = new MariaDbServer(process, port, dir);
    try {
      server.awaitListening();
      server.sql("CREATE USER '" + ADMIN + "'@'%' IDENTIFIED BY '" + ADMIN + "';"
          + " GRANT ALL PRIVILEGES ON *.* TO '" + ADMIN + "'@'%' WITH GRANT OPTION;"
          + " CREATE USER '" + CDC + "'@'%' IDENTIFIED BY '" + CDC + "';"
          + " GRANT SELECT, RELOAD, SHOW DATABASES, LOCK TABLES, REPLICATION SLAVE, BINLOG MONITOR ON *.* TO '"
          + CDC + "'@'%';");
    } catch (IOException | RuntimeException e) {
      server.close();
      throw e;
    }
    return server;
  }

  private static String user() {
    return System.getProperty("user.name");
  }

  private void awaitListening() throws IOException, InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (System.nanoTime() < deadline) {
      if (!process.isAlive()) {
        throw new IOException("mariadbd exited with " + process.exitValue() + "; log:\n"
            + Files.readString(dir.resolve("mariadbd.log")));
      }
      try (Socket socket = new Socket("127.0.0.1", port)) {
        return;
      } catch (IOException notYet) {
        Thread.sleep(100);
      }
    }
    throw new IOException("mariadbd did not listen on port " + port + " within 30 s");
  }

  /** Runs SQL as root over the server's socket (the {@code mariadb} client). */
  public void sql(String statements) throws IOException, InterruptedException {
    run(List.of("mariadb", "--no-defaults", "--socket=" + dir.resolve("mariadb.sock"), "-u", "root", "-e",
        statements), dir.resolve("sql.log"));
  }

  private static void run(List<String> command, Path log) throws IOException, InterruptedException {
    Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
      process.destroyForcibly();
      throw new IOException(String.join(" ", command.subList(0, 2)) + " failed; log:\n" + Files.readString(log));
    }
  }

  public int port() {
    return port;
  }

  /** A JDBC URL for {@code database} (may be empty) as {@code user}, whose password is its name. */
  public String url(String database, String user) {
    return "jdbc:mariadb://127.0.0.1:" + port + "/" + database + "?user=" + user + "&password=" + user;
  }

  /** Stops the server (SIGTERM: a clean shutdown), waiting up to 30 s. */
  @Override
  public void close() throws InterruptedException {
    process.destroy();
    if (!process.waitFor(30, TimeUnit.SECONDS)) {
      process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    }
  }
}
