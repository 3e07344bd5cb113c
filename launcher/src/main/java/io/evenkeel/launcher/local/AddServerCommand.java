package io.evenkeel.launcher.local;

import io.evenkeel.cluster.state.ClusterState;
import io.evenkeel.cluster.state.ClusterStateClient;
import io.evenkeel.cluster.zookeeper.ZooKeeperClients;
import io.evenkeel.launcher.cli.DurationConverter;
import io.evenkeel.launcher.cli.UserError;
import io.evenkeel.schemas.CopyMove;
import io.evenkeel.schemas.ShardCopies;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.retry.ExponentialBackoffRetry;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code evenkeel add-server}: one more shard server for the running local stack. The stack starts it on the next
 * port; it joins the cluster holding nothing, and the master moves copies onto it, one at a time, until the servers
 * carry even loads. This command follows the moves in the cluster state and returns once the cluster has stayed at
 * rest for a few seconds (or at once with {@code --no-wait}).
 */
@Command(name = "add-server", mixinStandardHelpOptions = true,
    description = {"Adds a shard server to the running local stack (bin/evenkeel local) and waits until the master "
        + "has moved its share of shard copies onto it, printing each move.",
        "Writes and queries go on meanwhile; a restart of the stack starts the added server too."})
public final class AddServerCommand implements Callable<Integer> {
  /** How long the cluster must stay at rest to count as balanced: the master plans a step every second. */
  private static final Duration SETTLED = Duration.ofSeconds(3);

  @Option(names = "--data-dir", defaultValue = "evenkeel-data",
      description = "The local stack's data directory (default: ${DEFAULT-VALUE}).")
  Path dataDir;

  @Option(names = "--wait", negatable = true, defaultValue = "true", fallbackValue = "true",
      description = "Wait until the servers are even (default: ${DEFAULT-VALUE}; --no-wait returns once the server "
          + "has joined).")
  boolean wait;

  @Option(names = "--timeout", defaultValue = "30m", converter = DurationConverter.class,
      description = "How long to wait for the server to join and the copies to move (default: ${DEFAULT-VALUE}).")
  Duration timeout;

  @Override
  public Integer call() throws Exception {
    PrintStream out = System.out;
    long started = System.nanoTime();
    long deadline = started + timeout.toNanos();
    StackInfo before = StackInfo.read(dataDir);
    AddServerRequest.submit(dataDir);
    out.println("asked the stack on " + dataDir + " for a shard server");
    StackInfo.ShardServer added;
    try {
      added = awaitJoined(before, deadline);
    } finally {
      AddServerRequest.take(dataDir); // not taken yet: withdrawn, so that no later stack takes it up
    }
    out.printf("shard server %s joined (%.1f s)%n", added.address(), (System.nanoTime() - started) / 1e9);
    if (!wait) {
      return 0;
    }
    Path credentials = before.caCertificate() == null ? null : LocalSecurity.zookeeperCredentialsIn(dataDir);
    try (CuratorFramework zookeeper = ZooKeeperClients.start(before.zookeeper(), credentials,
            new ExponentialBackoffRetry(200, 5));
        ClusterStateClient cluster = new ClusterStateClient(zookeeper, before.zookeeperRoot())) {
      cluster.start();
      return follow(cluster, before, added.address(), started, deadline, out) ? 0 : 1;
    }
  }

  /** Waits until stack.json lists one more server than {@code before}, or the stack says why it could not. */
  private StackInfo.ShardServer awaitJoined(StackInfo before, long deadline) throws Exception {
    while (System.nanoTime() < deadline) {
      Optional<String> failure = AddServerRequest.failure(dataDir);
      if (failure.isPresent()) {
        throw new UserError("the stack could not add a shard server: " + failure.get());
      }
      ensureRunning(before);
      List<StackInfo.ShardServer> servers = StackInfo.read(dataDir).shardServers();
      if (servers.size() > before.shardServers().size()) {
        return servers.get(servers.size() - 1);
      }
      Thread.sleep(250);
    }
    throw new UserError("no shard server joined within --timeout " + timeout.toSeconds() + " s; see the stack's "
        + "logs in " + dataDir.resolve("logs"));
  }

  private void ensureRunning(StackInfo stack) {
    if (!Files.exists(dataDir.resolve(StackInfo.FILE))
        || !ProcessHandle.of(stack.pid()).map(ProcessHandle::isAlive).orElse(false)) {
      throw new UserError("the stack on " + dataDir + " (pid " + stack.pid() + ") is no longer running");
    }
  }

  /**
   * Prints each move as it starts and the copies on the added server, until the cluster has been at rest for {@link
   * #SETTLED}; answers whether that happened before the deadline.
   */
  private boolean follow(ClusterStateClient cluster, StackInfo stack, String added, long started, long deadline,
      PrintStream out) throws InterruptedException {
    String last = "";
    long restSince = 0;
    while (System.nanoTime() < deadline) {
      ensureRunning(stack);
      ClusterState state = cluster.current();
      String moves = state.shards().values().stream().filter(copies -> copies.getMove() != null)
          .map(AddServerCommand::describeMove).collect(Collectors.joining("; "));
      String line = String.format("  %s holds %d copies (%d primaries)%s", added, state.copiesOn(added),
          state.primariesOn(added), moves.isEmpty() ? "" : "; moving " + moves);
      if (!line.equals(last)) {
        out.printf("[%5.1f s]%s%n", (System.nanoTime() - started) / 1e9, line);
        last = line;
      }
      if (state.live(added) && state.atRest()) {
        restSince = restSince == 0 ? System.nanoTime() : restSince;
        if (System.nanoTime() - restSince >= SETTLED.toNanos()) {
          out.printf("balanced in %.1f s: copies per server %s; primaries %s%n",
              (restSince - started) / 1e9, perServer(state, false), perServer(state, true));
          return true;
        }
      } else {
        restSince = 0;
      }
      Thread.sleep(200);
    }
    out.println("the copies were still moving when --timeout ran out; the master goes on moving them");
    return false;
  }

  private static String describeMove(ShardCopies copies) {
    CopyMove move = copies.getMove();
    return String.format("shard %d's %s %s -> %s", copies.getShard(),
        move.getFrom().equals(copies.getPrimary()) ? "primary" : "replica", move.getFrom(), move.getTo());
  }

  /** "127.0.0.1:7710 6, 127.0.0.1:7711 5, ...": copies (or primaries) per live server. */
  private static String perServer(ClusterState state, boolean primaries) {
    return state.servers().keySet().stream().sorted()
        .map(server -> server + " " + (primaries ? state.primariesOn(server) : state.copiesOn(server)))
        .collect(Collectors.joining(", "));
  }
}
