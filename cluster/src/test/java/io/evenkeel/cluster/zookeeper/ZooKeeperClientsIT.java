package io.evenkeel.cluster.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.retry.RetryOneTime;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.KeeperException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** With credentials, Evenkeel's nodes (parents included) are its own: others can neither read nor change them. */
class ZooKeeperClientsIT {
  @TempDir Path dir;

  @Test
  void nodesCreatedWithCredentialsAreClosedToOtherClients() throws Exception {
    Path credentials = dir.resolve("zookeeper-credentials");
    Files.writeString(credentials, "evenkeel:s3cret\n");
    Path wrong = dir.resolve("wrong");
    Files.writeString(wrong, "evenkeel:guess\n");
    try (TestingServer server = new TestingServer();
        CuratorFramework owner = ZooKeeperClients.start(server.getConnectString(), credentials, new RetryOneTime(100));
        CuratorFramework again = ZooKeeperClients.start(server.getConnectString(), credentials, new RetryOneTime(100));
        CuratorFramework open = ZooKeeperClients.start(server.getConnectString(), null, new RetryOneTime(100));
        CuratorFramework guesser = ZooKeeperClients.start(server.getConnectString(), wrong, new RetryOneTime(100))) {
      owner.create().creatingParentsIfNeeded()
          .forPath("/evenkeel/local/rules/0", "rule".getBytes(StandardCharsets.UTF_8));

      assertThat(new String(again.getData().forPath("/evenkeel/local/rules/0"), StandardCharsets.UTF_8))
          .as("another process with the same credentials").isEqualTo("rule");
      for (CuratorFramework stranger : new CuratorFramework[] {open, guesser}) {
        assertThatThrownBy(() -> stranger.getData().forPath("/evenkeel/local/rules/0"))
            .isInstanceOf(KeeperException.NoAuthException.class);
        assertThatThrownBy(() -> stranger.create().forPath("/evenkeel/local/rules/1"))
            .as("a forged rule").isInstanceOf(KeeperException.NoAuthException.class);
        assertThatThrownBy(() -> stranger.delete().forPath("/evenkeel/local/rules/0"))
            .isInstanceOf(KeeperException.NoAuthException.class);
      }
    }
  }

  @Test
  void credentialsMustBeUserColonPassword() throws Exception {
    Path bad = dir.resolve("bad");
    Files.writeString(bad, "just-a-password\n");
    assertThatThrownBy(() -> ZooKeeperClients.start("127.0.0.1:1", bad, new RetryOneTime(100)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("user:password");
  }
}
