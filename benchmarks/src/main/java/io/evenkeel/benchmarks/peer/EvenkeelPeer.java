package io.evenkeel.benchmarks.peer;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.evenkeel.cluster.client.ClusterClient;
import io.evenkeel.cluster.placement.ShardAddress;
import io.evenkeel.cluster.state.ClusterStateClient;
import io.evenkeel.embedded.ChildProcess;
import io.evenkeel.launcher.local.StackPorts;
import io.evenkeel.router.protocol.RuleListClient;
import io.evenkeel.router.protocol.RuleProtocolConfig;
import io.evenkeel.router.rules.RuleList;
import io.evenkeel.schemas.ShardCopies;
import io.evenkeel.schemas.shard.ShardStats;
import io.evenkeel.schemas.shard.StatsRequest;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;

/**
 * Evenkeel as a user runs it: {@code bin/evenkeel local --no-replay} on free loopback ports with its own data
 * directory, {@code bin/evenkeel load FILE --wait}, and SQL over HTTP to the query service.
 */
public final class EvenkeelPeer implements SqlEndpoint, AutoCloseable {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration READY_TIMEOUT = Duration.ofSeconds(240);

  private final Path repo;
  private final Path dataDir;
  private final ChildProcess stack;
  private final SqlOverHttp sql;

  private final int basePort;

  private EvenkeelPeer(Path repo, Path dataDir, ChildProcess stack, int basePort) {
    this.repo = repo;
    this.dataDir = dataDir;
    this.stack = stack;
    this.basePort = basePort;
    this.sql = new SqlOverHttp("http://127.0.0.1:" + (basePort + 4));
  }

  /**
   * Starts the local stack ({@code shardServers} servers, {@code shards} shards of {@code replicas} replicas each, as
   * the OpenSearch peer has) and waits until it is ready.
   */
  static EvenkeelPeer start(Path repo, Path dataDir, int shardServers, int shards, int replicas)
      throws IOException, InterruptedException {
    return start(repo, dataDir, List.of("--shard-servers", Integer.toString(shardServers), "--shards",
        Integer.toString(shards), "--replicas", Integer.toString(replicas)));
  }

  /** Starts {@code bin/evenkeel local --no-replay} with {@code localArgs} and waits until it is ready. */
  public static EvenkeelPeer start(Path repo, Path dataDir, List<String> localArgs)
      throws IOException, InterruptedException {
    int base = StackPorts.freeBase();
    List<String> command = new ArrayList<>(List.of(repo.resolve("bin/evenkeel").toString(), "local", "--no-replay",
        "--base-port", Integer.toString(base), "--data-dir", dataDir.toString(), "--status-interval", "10s"));
    command.addAll(localArgs);
    // A log per stack: readiness is read from it, so an earlier run's lines must not be in it.
    ChildProcess stack = ChildProcess.start("evenkeel", command,
        dataDir.resolveSibling(dataDir.getFileName() + "-evenkeel-local.log"));
    stack.awaitReady(READY_TIMEOUT, () -> Files.readString(stack.log()).contains("Evenkeel is ready"));
    return new EvenkeelPeer(repo, dataDir, stack, base);
  }

  /** The stack's first port: ZooKeeper listens there, shard server i on +10+i. */
  public int basePort() {
    return basePort;
  }

  /** The stack's Kafka brokers, where the ingest topic {@code transaction-logs} is, as {@code stack.json} names them. */
  public String bootstrapServers() throws IOException {
    return stackInfo().path("bootstrap_servers").asText();
  }

  /** The consumer group in which the ingest job records the offsets it has written, as {@code stack.json} names it. */
  public String writtenOffsetsGroup() throws IOException {
    return stackInfo().path("written_offsets_group").asText();
  }

  /** How many routing rules the stack has committed: the rule list in ZooKeeper, as {@code stack.json} names it. */
  public int committedRules() throws Exception {
    return committedRuleList().size();
  }

  /** The routing rules the stack has committed. */
  public RuleList committedRuleList() throws Exception {
    JsonNode info = stackInfo();
    try (CuratorFramework zookeeper = CuratorFrameworkFactory.newClient(info.path("zookeeper").asText(),
        new ExponentialBackoffRetry(200, 3))) {
      zookeeper.start();
      try (RuleListClient rules = new RuleListClient(zookeeper,
          RuleProtocolConfig.builder(info.path("zookeeper_root").asText(), info.path("shards").asInt()).build())) {
        rules.start();
        return rules.refresh();
      }
    }
  }

  /** A shard's primary: the server it is on, and the documents it has. */
  public record ShardDocs(int shard, String server, long docs) {}

  /**
   * Every shard's primary and its documents, read as an operator would: the copies from the cluster state in
   * ZooKeeper, the documents from each primary's Stats call.
   */
  public List<ShardDocs> shardDocs() throws Exception {
    JsonNode info = stackInfo();
    try (CuratorFramework zookeeper = CuratorFrameworkFactory.newClient(info.path("zookeeper").asText(),
        new ExponentialBackoffRetry(200, 3));
        ClusterClient shards = new ClusterClient()) {
      zookeeper.start();
      try (ClusterStateClient cluster = new ClusterStateClient(zookeeper, info.path("zookeeper_root").asText())) {
        cluster.start();
        List<ShardDocs> docs = new ArrayList<>();
        for (ShardCopies copies : cluster.current().shards().values()) {
          ShardStats stats = shards.blockingStub(ShardAddress.parse(copies.getPrimary()))
              .withDeadlineAfter(5, TimeUnit.SECONDS)
              .stats(StatsRequest.newBuilder().setShard(copies.getShard()).build());
          docs.add(new ShardDocs(copies.getShard(), copies.getPrimary(), stats.getDocs()));
        }
        docs.sort(Comparator.comparingInt(ShardDocs::shard));
        return docs;
      }
    }
  }

  /** {@code <data dir>/stack.json}: where the running stack listens, written by it once it is ready. */
  private JsonNode stackInfo() throws IOException {
    return JSON.readTree(dataDir.resolve("stack.json").toFile());
  }

  /** Runs {@code bin/evenkeel load FILE --wait}: returns once every row is searchable, or throws with its output. */
  public void loadAndWait(Path rows) throws IOException, InterruptedException {
    run(repo, List.of("load", rows.toString(), "--wait", "--data-dir", dataDir.toString()));
  }

  /**
   * Runs {@code bin/evenkeel args} of the checkout at {@code repo} and returns its output once it exits, or throws
   * with that output when it fails.
   */
  public static String run(Path repo, List<String> args) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>(List.of(repo.resolve("bin/evenkeel").toString()));
    command.addAll(args);
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    String output = new String(process.getInputStream().readAllBytes());
    if (process.waitFor() != 0) {
      throw new IOException("bin/evenkeel " + args.get(0) + " exited with " + process.exitValue() + ":\n" + output);
    }
    return output;
  }

  /** A query's row count and the service's own time for it ({@code took_ms}). */
  record Answer(int rows, double tookMs) {}

  Answer query(String sql, List<Object> params) throws IOException, InterruptedException {
    JsonNode answer = answer(sql, params);
    return new Answer(answer.path("rows").size(), answer.path("took_ms").asDouble());
  }

  @Override
  public JsonNode rows(String query, List<Object> params) throws IOException, InterruptedException {
    return sql.rows(query, params);
  }

  /** The service's whole JSON answer (rows, took_ms, shards); throws with the answer when it is not 200. */
  public JsonNode answer(String query, List<Object> params) throws IOException, InterruptedException {
    return sql.answer(query, params);
  }

  /** The local stack's processes (the launcher and its children), for CPU accounting. */
  public List<ProcessHandle> processes() {
    List<ProcessHandle> all = new ArrayList<>();
    ProcessHandle.of(stack.pid()).ifPresent(launcher -> {
      all.add(launcher);
      launcher.descendants().forEach(all::add);
    });
    return all;
  }

  /** SIGTERM to the launcher, which stops its components in reverse order. */
  @Override
  public void close() throws InterruptedException {
    stack.stop(Duration.ofSeconds(90));
  }
}
