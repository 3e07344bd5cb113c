package io.evenkeel.benchmarks.skew;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.evenkeel.benchmarks.peer.OpenSearchCluster;
import io.evenkeel.benchmarks.peer.OpenSearchCluster.OpenSearchRouting;
import io.evenkeel.benchmarks.peer.PeerRows;
import io.evenkeel.schemas.TransactionLogChange;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * OpenSearch in one of its routing choices, on a running cluster: a fresh index of {@code shards} primaries without
 * replicas, rows indexed with {@code _bulk}, searched with {@code _count} and {@code _search}.
 */
final class OpenSearchTarget implements SkewTarget {
  private static final String INDEX = "transaction_logs";
  private static final ObjectMapper JSON = new ObjectMapper();

  private final OpenSearchCluster cluster;
  private final OpenSearchRouting routing;
  private final int shards;
  private final int partitionSize;
  private final String heap;

  OpenSearchTarget(OpenSearchCluster cluster, OpenSearchRouting routing, int shards, int partitionSize, String heap)
      throws Exception {
    this.cluster = cluster;
    this.routing = routing;
    this.shards = shards;
    this.partitionSize = partitionSize;
    this.heap = heap;
    cluster.createIndex(INDEX, shards, 0, routing, partitionSize);
  }

  @Override
  public String name() {
    return switch (routing) {
      case BY_ID -> "OpenSearch by _id";
      case BY_TENANT -> "OpenSearch routing=tenant_id";
      case TENANT_PARTITIONED -> "OpenSearch routing=tenant_id, partition " + partitionSize;
    };
  }

  @Override
  public String settings() {
    return String.format(Locale.ROOT, "%s, %d nodes: heap %s each with its distribution's JVM options, "
        + "%d primaries and no replicas, refresh every 1 s, translog synced per request (its default)",
        cluster.version(), cluster.pids().size(), heap, shards);
  }

  @Override
  public void write(List<TransactionLogChange> rows) throws Exception {
    StringBuilder body = new StringBuilder(rows.size() * 600);
    for (TransactionLogChange row : rows) {
      body.append(OpenSearchCluster.bulkLine(INDEX, routing, row.getTenantId() + "_" + row.getRowId(),
          row.getTenantId(), JSON.writeValueAsString(PeerRows.json(row))));
    }
    cluster.bulk(body.toString());
  }

  @Override
  public long count() throws Exception {
    return cluster.count(INDEX);
  }

  @Override
  public Set<Long> found(List<Long> rowIds) throws Exception {
    return cluster.searchable(INDEX, rowIds);
  }

  @Override
  public Answer tenantQuery(long tenant) throws Exception {
    ObjectNode body = JSON.createObjectNode().put("size", 100);
    body.putArray("sort").addObject().putObject("created_time").put("order", "desc");
    var filter = body.putObject("query").putObject("bool").putArray("filter");
    filter.addObject().putObject("term").put("tenant_id", tenant);
    filter.addObject().putObject("terms").putArray("status").add(0).add(1).add(2);
    OpenSearchCluster.Answer answer = cluster.search(INDEX, routing, tenant, body.toString());
    return new Answer(answer.rows(), answer.shards());
  }

  @Override
  public List<ProcessHandle> storageNodes() {
    return cluster.pids().stream().map(pid -> ProcessHandle.of(pid).orElseThrow()).toList();
  }

  @Override
  public List<ProcessHandle> processes() {
    return storageNodes();
  }

  /** The cluster outlives the index: the next routing choice gets a fresh index on it. */
  @Override
  public void close() {}

  @Override
  public String toString() {
    return name();
  }
}
