package io.evenkeel.cluster.zookeeper;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.curator.RetryPolicy;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.api.ACLProvider;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.data.ACL;

/**
 * How every Evenkeel process opens ZooKeeper. With credentials ({@code user:password}, read from a file so they stay
 * out of process listings) the session authenticates with ZooKeeper's built-in digest scheme and every node it
 * creates carries {@code CREATOR_ALL_ACL}: readable and writable by that identity alone, so a client without the
 * credentials can neither read the rule list nor vote in, or forge, a rule round. Without them, nodes are open, as
 * ZooKeeper makes them by default.
 */
public final class ZooKeeperClients {
  private ZooKeeperClients() {}

  /** A started client of {@code connectString}; {@code credentialsFile} null for an open one. */
  public static CuratorFramework start(String connectString, Path credentialsFile, RetryPolicy retry) {
    return start(connectString, credentialsFile, retry, 60_000);
  }

  /**
   * The same with a session timeout of its own: how long after a process dies its ephemeral znodes go (for a shard
   * server, how soon a replica takes over its primaries). ZooKeeper bounds it to [2, 20] ticks.
   */
  public static CuratorFramework start(String connectString, Path credentialsFile, RetryPolicy retry,
      int sessionTimeoutMs) {
    CuratorFrameworkFactory.Builder builder = CuratorFrameworkFactory.builder().connectString(connectString)
        .retryPolicy(retry).sessionTimeoutMs(sessionTimeoutMs);
    if (credentialsFile != null) {
      builder.authorization("digest", credentials(credentialsFile)).aclProvider(new CreatorOnly());
    }
    CuratorFramework client = builder.build();
    client.start();
    return client;
  }

  private static byte[] credentials(Path file) {
    String text;
    try {
      text = Files.readString(file, StandardCharsets.UTF_8).strip();
    } catch (IOException e) {
      throw new IllegalArgumentException("cannot read the ZooKeeper credentials " + file + ": " + e.getMessage(), e);
    }
    if (text.indexOf(':') <= 0 || text.endsWith(":")) {
      throw new IllegalArgumentException("the ZooKeeper credentials file " + file + " must hold user:password");
    }
    return text.getBytes(StandardCharsets.UTF_8);
  }

  /** Every node, parents included, for the authenticated creator only. */
  private static final class CreatorOnly implements ACLProvider {
    @Override
    public List<ACL> getDefaultAcl() {
      return ZooDefs.Ids.CREATOR_ALL_ACL;
    }

    @Override
    public List<ACL> getAclForPath(String path) {
      return ZooDefs.Ids.CREATOR_ALL_ACL;
    }
  }
}
