package io.evenkeel.embedded;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.stream.Collectors;

/**
 * A ZooKeeper ensemble of several servers, each in its own JVM on free loopback ports, as production runs it: it
 * serves while a majority runs, and its clients move to another server when theirs is lost.
 */
public final class ZooKeeperEnsemble implements AutoCloseable {
  private static final Duration READY_TIMEOUT = Duration.ofSeconds(60);

  private final Path dir;
  private final int[] ports;
  private final Properties servers;
  private final List<ZooKeeperServer> members = new ArrayList<>();

  private ZooKeeperEnsemble(Path dir, int[] ports, Properties servers) {
    this.dir = dir;
    this.ports = ports;
    this.servers = servers;
  }

  /** Starts {@code size} servers, server {@code i}'s files in {@code dir/zookeeper-<i>}, and waits until all serve. */
  public static ZooKeeperEnsemble start(Path dir, int size) throws IOException, InterruptedException {
    int[] ports = FreePorts.pick(3 * size); // per server: clients, followers to the leader, leader election
    Properties servers = new Properties();
    servers.setProperty("initLimit", "10");
    servers.setProperty("syncLimit", "5");
    for (int i = 0; i < size; i++) {
      servers.setProperty("server." + (i + 1), "127.0.0.1:" + ports[3 * i + 1] + ":" + ports[3 * i + 2]);
    }
    ZooKeeperEnsemble ensemble = new ZooKeeperEnsemble(dir, ports, servers);
    try {
      for (int i = 0; i < size; i++) {
        ensemble.members.add(ensemble.launch(i)); // all before any waits: a server serves once a majority runs
      }
      for (int i = 0; i < size; i++) {
        ensemble.awaitServing(i);
      }
    } catch (IOException | RuntimeException | InterruptedException e) {
      ensemble.close();
      throw e;
    }
    return ensemble;
  }

  private ZooKeeperServer launch(int i) throws IOException {
    Path home = dir.resolve("zookeeper-" + i);
    return ZooKeeperServer.launch(home, ports[3 * i], home.resolve("zookeeper.log"), i + 1, servers);
  }

  private void awaitServing(int i) throws IOException, InterruptedException {
    ZooKeeperServer member = members.get(i);
    member.process().awaitReady(READY_TIMEOUT, () -> member.mode() != null);
  }

  /** Every server's client address, as a client's connect string. */
  public String connectString() {
    return members.stream().map(ZooKeeperServer::connectString).collect(Collectors.joining(","));
  }

  /** The index of the server that leads now, or -1 while none does. */
  public int leader() {
    for (int i = 0; i < members.size(); i++) {
      if ("leader".equals(members.get(i).mode())) {
        return i;
      }
    }
    return -1;
  }

  /** Each server's mode ({@code leader}, {@code follower}), null for one not serving. */
  public List<String> modes() {
    return members.stream().map(ZooKeeperServer::mode).toList();
  }

  /** Kills server {@code i} with SIGKILL. */
  public void kill(int i) throws InterruptedException {
    members.get(i).process().kill();
  }

  /** Stops server {@code i} as an operator does (SIGTERM), for a rolling restart. */
  public void stop(int i) throws InterruptedException {
    members.get(i).close();
  }

  /** Starts server {@code i} again on its ports and data, and waits until it serves. */
  public void restart(int i) throws IOException, InterruptedException {
    members.set(i, launch(i));
    awaitServing(i);
  }

  @Override
  public void close() throws InterruptedException {
    for (ZooKeeperServer member : members) {
      member.close();
    }
  }
}
