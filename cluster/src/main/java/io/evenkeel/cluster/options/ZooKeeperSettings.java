package io.evenkeel.cluster.options;

import io.evenkeel.cluster.zookeeper.ZooKeeperClients;
import java.io.Serializable;
import java.nio.file.Path;
import java.util.List;
import org.apache.curator.RetryPolicy;
import org.apache.curator.framework.CuratorFramework;

/**
 * A process's ZooKeeper as {@link ZooKeeperOptions} give it.
 *
 * @param connect the connect string, or null for none: the process runs without ZooKeeper
 * @param root the root of the cluster's nodes
 * @param credentialsFile the file holding {@code user:password}, or null for open nodes; a string, not a path, so that
 *     the settings serialize (a Flink job ships them to its operators)
 */
public record ZooKeeperSettings(String connect, String root, String credentialsFile) implements Serializable {
  /** Whether the process has a ZooKeeper ({@code --zookeeper} given, or defaulted). */
  public boolean given() {
    return connect != null;
  }

  /** The credentials file, or null. */
  public Path credentials() {
    return credentialsFile == null ? null : Path.of(credentialsFile);
  }

  /** A started client of this ZooKeeper ({@link ZooKeeperClients#start}); the caller closes it. */
  public CuratorFramework startClient(RetryPolicy retry) {
    return ZooKeeperClients.start(connect, credentials(), retry);
  }

  /** The same with a session timeout of its own (see {@link ZooKeeperClients}). */
  public CuratorFramework startClient(RetryPolicy retry, int sessionTimeoutMs) {
    return ZooKeeperClients.start(connect, credentials(), retry, sessionTimeoutMs);
  }

  /** These settings as the flags of another process; what is null is left out. */
  public List<String> toArgs() {
    return new FlagArgs().add(ZooKeeperOptions.CONNECT, connect).add(ZooKeeperOptions.ROOT, root)
        .add(ZooKeeperOptions.CREDENTIALS, credentialsFile).toList();
  }
}
