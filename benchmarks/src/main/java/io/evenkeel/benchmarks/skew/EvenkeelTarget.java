package io.evenkeel.benchmarks.skew;

import com.fasterxml.jackson.databind.JsonNode;
import io.evenkeel.benchmarks.peer.EvenkeelPeer;
import io.evenkeel.schemas.TransactionLogChange;
import io.evenkeel.workload.ChangeProducer;
import java.io.IOException;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Evenkeel as a user runs it: {@code bin/evenkeel local --no-replay} with {@code nodes} shard servers, rows produced to
 * its ingest topic as a native producer writes them, SQL over HTTP.
 */
final class EvenkeelTarget implements SkewTarget {
  static final String TOPIC = "transaction-logs";
  private static final String SHARD_SERVER_JAR = "shard-server/target/shard-server.jar";

  private final EvenkeelPeer stack;
  private final String policy;
  private final int shards;
  private final ChangeProducer producer;

  private EvenkeelTarget(EvenkeelPeer stack, String policy, int shards, ChangeProducer producer) {
    this.stack = stack;
    this.policy = policy;
    this.shards = shards;
    this.producer = producer;
  }

  static EvenkeelTarget start(Path repo, Path dataDir, int nodes, int shards, String policy) throws Exception {
    EvenkeelPeer stack = EvenkeelPeer.start(repo, dataDir, List.of("--shard-servers", Integer.toString(nodes),
        "--shards", Integer.toString(shards), "--replicas", "0", "--policy", policy));
    try {
      return new EvenkeelTarget(stack, policy, shards,
          new ChangeProducer(stack.bootstrapServers(), TOPIC, "skew-benchmark", 256 * 1024));
    } catch (RuntimeException | IOException e) {
      stack.close();
      throw e;
    }
  }

  @Override
  public String name() {
    return "Evenkeel (" + policy + ")";
  }

  @Override
  public String settings() {
    return "bin/evenkeel local --shard-servers " + storageNodes().size() + " --shards " + shards
        + " --replicas 0 --policy " + policy + ": shard servers -Xmx512m, refresh every 1 s, translog synced per"
        + " request (--durability request); rows produced to Kafka (linger 10 ms, 256 KB batches)";
  }

  @Override
  public void write(List<TransactionLogChange> rows) {
    rows.forEach(producer::send);
    if (producer.failed()) {
      producer.flush();
    }
  }

  @Override
  public long count() throws Exception {
    return stack.rows("SELECT COUNT(*) FROM transaction_logs", List.of()).get(0).get(0).asLong();
  }

  @Override
  public Set<Long> found(List<Long> rowIds) throws Exception {
    JsonNode rows = stack.rows("SELECT row_id FROM transaction_logs WHERE row_id IN ("
        + rowIds.stream().map(String::valueOf).collect(Collectors.joining(", ")) + ")", List.of());
    Set<Long> found = new HashSet<>();
    rows.forEach(row -> found.add(row.get(0).asLong()));
    return found;
  }

  @Override
  public Answer tenantQuery(long tenant) throws Exception {
    JsonNode answer = stack.answer("SELECT * FROM transaction_logs WHERE tenant_id = ? AND status IN (?, ?, ?)"
        + " ORDER BY created_time DESC LIMIT 100", List.of(tenant, 0, 1, 2));
    return new Answer(answer.path("rows").size(), answer.path("shards").path("total").asInt());
  }

  @Override
  public List<ProcessHandle> storageNodes() {
    return stack.processes().stream().filter(EvenkeelTarget::isShardServer).toList();
  }

  @Override
  public List<ProcessHandle> processes() {
    return stack.processes();
  }

  /** {@code java ... -jar .../shard-server/target/shard-server.jar}. */
  private static boolean isShardServer(ProcessHandle process) {
    List<String> args = List.of(process.info().arguments().orElse(new String[0]));
    int jar = args.indexOf("-jar");
    return jar >= 0 && jar + 1 < args.size() && args.get(jar + 1).endsWith(SHARD_SERVER_JAR);
  }

  @Override
  public void close() throws Exception {
    try {
      producer.close();
    } finally {
      stack.close();
    }
  }

  @Override
  public String toString() {
    return name();
  }
}
