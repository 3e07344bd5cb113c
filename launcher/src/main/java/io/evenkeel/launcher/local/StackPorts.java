package io.evenkeel.launcher.local;

import io.evenkeel.embedded.FreePorts;
import java.io.IOException;

/**
 * The stack's fixed loopback ports, all from one base port, so that a restart finds every component where it was
 * and shard placement can be static: base+0 ZooKeeper, +1 Kafka, +2 Kafka's KRaft controller, +3 the Flink web UI,
 * +4 the query service, +10.. the shard servers.
 */
public record StackPorts(int base, int shardServers) {
  public StackPorts {
    if (shardServers < 1) {
      throw new IllegalArgumentException("shard servers must be >= 1; got: " + shardServers);
    }
    if (base < 1024 || base + 10 + shardServers - 1 > 65535) {
      throw new IllegalArgumentException("base port must be in [1024, " + (65535 - 10 - shardServers + 1) + "] for "
          + shardServers + " shard servers; got: " + base);
    }
  }

  public int zookeeper() {
    return base;
  }

  public int kafka() {
    return base + 1;
  }

  public int kafkaController() {
    return base + 2;
  }

  public int flinkUi() {
    return base + 3;
  }

  /** Reserved for the query service (see the hook in {@link LocalStack}). */
  public int queryService() {
    return base + 4;
  }

  public int shardServer(int index) {
    return base + 10 + index;
  }

  /**
   * A base port with the stack's ports (+0..+4, +10..+19) free now, below Linux's ephemeral range (32768 and up):
   * there, a client connection of this machine could take one before the stack binds it.
   */
  public static int freeBase() throws IOException {
    return FreePorts.consecutive(20);
  }
}
