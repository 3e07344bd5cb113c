package io.evenkeel.cluster.options;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/** The shared flags parse into settings that write themselves back as the same flags (how the local stack starts). */
class SharedOptionsTest {
  @Command
  static final class Process {
    @Mixin ZooKeeperOptions zookeeper = new ZooKeeperOptions();
    @Mixin PlacementOptions placement = new PlacementOptions();
    @Mixin ClientTlsOptions tls = new ClientTlsOptions();
  }

  private static Process parse(List<String> args) {
    Process process = new Process();
    new CommandLine(process).parseArgs(args.toArray(String[]::new));
    return process;
  }

  @Test
  void settingsWrittenBackAsFlagsParseToTheSameSettings() {
    Process given = parse(List.of("--zookeeper", "127.0.0.1:2181", "--zookeeper-root", "/evenkeel/a",
        "--zookeeper-credentials", "/etc/zk", "--shards", "8", "--placement", "zookeeper", "--tls-ca", "/ca.pem",
        "--tls-cert", "/c.pem", "--tls-key", "/k.pem"));
    List<String> args = new ArrayList<>(given.zookeeper.settings().toArgs());
    args.addAll(given.placement.settings().toArgs());
    args.addAll(given.tls.settings().toArgs());
    Process again = parse(args);

    assertThat(again.zookeeper.settings()).isEqualTo(given.zookeeper.settings())
        .isEqualTo(new ZooKeeperSettings("127.0.0.1:2181", "/evenkeel/a", "/etc/zk"));
    assertThat(again.placement.settings()).isEqualTo(new PlacementSettings(8, "zookeeper"));
    assertThat(again.tls.settings()).isEqualTo(new ClientTlsSettings("/ca.pem", "/c.pem", "/k.pem"));
  }

  @Test
  void flagsNotGivenAreLeftOut() {
    Process none = parse(List.of());
    assertThat(none.zookeeper.settings().toArgs()).containsExactly("--zookeeper-root", ZooKeeperOptions.DEFAULT_ROOT);
    assertThat(none.placement.settings().toArgs()).isEmpty();
    assertThat(none.tls.settings().toArgs()).isEmpty();
    assertThat(ZooKeeperOptions.withDefaultConnect("127.0.0.1:2181").settings().connect()).isEqualTo("127.0.0.1:2181");
  }
}
