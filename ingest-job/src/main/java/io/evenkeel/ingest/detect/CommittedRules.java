package io.evenkeel.ingest.detect;

import io.evenkeel.ingest.settings.IngestSettings;
import io.evenkeel.router.protocol.RuleListClient;
import io.evenkeel.router.rules.RuleList;
import org.apache.curator.framework.CuratorFramework;

/**
 * The committed rule list as a detector reads it: its own ZooKeeper client and a {@link RuleListClient} over it,
 * opened in an operator's {@code open} and closed in its {@code close}, together.
 */
final class CommittedRules implements AutoCloseable {
  private final CuratorFramework zookeeper;
  private final RuleListClient rules;

  private CommittedRules(CuratorFramework zookeeper, RuleListClient rules) {
    this.zookeeper = zookeeper;
    this.rules = rules;
  }

  static CommittedRules open(IngestSettings settings) throws Exception {
    CuratorFramework zookeeper = settings.startZooKeeperClient();
    try {
      RuleListClient rules = new RuleListClient(zookeeper, settings.protocolConfig());
      rules.start();
      return new CommittedRules(zookeeper, rules);
    } catch (Exception e) {
      zookeeper.close();
      throw e;
    }
  }

  /** The committed rules as last applied here (never blocks). */
  RuleList current() {
    return rules.current();
  }

  @Override
  public void close() {
    try {
      rules.close();
    } finally {
      zookeeper.close();
    }
  }
}
