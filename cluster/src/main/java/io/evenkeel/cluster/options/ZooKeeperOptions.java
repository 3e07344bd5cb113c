package io.evenkeel.cluster.options;

import java.nio.file.Path;
import picocli.CommandLine.Option;

/**
 * The ZooKeeper flags every cluster process takes, declared once: where the cluster's ZooKeeper is, the root of its
 * nodes, and the identity to authenticate as. A picocli mixin; {@link #settings} is what the process runs by, and
 * {@link ZooKeeperSettings#toArgs} writes it back as these flags.
 */
public final class ZooKeeperOptions {
  public static final String CONNECT = "--zookeeper";
  public static final String ROOT = "--zookeeper-root";
  public static final String CREDENTIALS = "--zookeeper-credentials";
  /** The root of the cluster's nodes unless {@code --zookeeper-root} names another. */
  public static final String DEFAULT_ROOT = "/evenkeel/local";

  // Each process says in its own description what it keeps there and whether it runs without one.
  @Option(names = CONNECT, description = "The cluster's ZooKeeper: its connect string, host:port[,host:port...].")
  private String zookeeper;

  @Option(names = ROOT, defaultValue = DEFAULT_ROOT,
      description = "The cluster's ZooKeeper root (default: ${DEFAULT-VALUE}).")
  private String zookeeperRoot;

  @Option(names = CREDENTIALS, paramLabel = "FILE", description = "A file holding user:password: authenticate with "
      + "ZooKeeper (digest) and create every node for that identity only; every process of the cluster uses the same.")
  private Path zookeeperCredentials;

  /** Flags with no default ZooKeeper: without {@code --zookeeper} the process runs without one. */
  public ZooKeeperOptions() {}

  /** Flags whose {@code --zookeeper} defaults to {@code connect}, for a process that cannot run without ZooKeeper. */
  public static ZooKeeperOptions withDefaultConnect(String connect) {
    ZooKeeperOptions options = new ZooKeeperOptions();
    // picocli takes an option field's value before parsing as its default.
    options.zookeeper = connect;
    return options;
  }

  /** The flags as parsed. */
  public ZooKeeperSettings settings() {
    return new ZooKeeperSettings(zookeeper, zookeeperRoot,
        zookeeperCredentials == null ? null : zookeeperCredentials.toString());
  }
}
