package io.evenkeel.benchmarks.skew;

import io.evenkeel.schemas.TransactionLogChange;
import java.util.List;
import java.util.Set;

/** One system under the skewed load, as its users meet it: rows written, rows counted, rows and tenants queried. */
interface SkewTarget extends AutoCloseable {
  /** "Evenkeel (dynamic)", "OpenSearch routing=tenant_id", ... */
  String name();

  /** What a reader needs to know of how it runs (heap, refresh, translog, shards and copies). */
  String settings();

  /**
   * Writes rows; returns once the system has accepted them (Kafka acknowledged, or {@code _bulk} answered). Called
   * from several writer threads at once.
   */
  void write(List<TransactionLogChange> rows) throws Exception;

  /** Rows searchable now. */
  long count() throws Exception;

  /** Which of these row ids are searchable now. */
  Set<Long> found(List<Long> rowIds) throws Exception;

  /** A tenant's newest rows, as a user of that tenant asks for them. */
  Answer tenantQuery(long tenant) throws Exception;

  /** A query's rows and how many shards it visited. */
  record Answer(int rows, int shards) {}

  /** The storage nodes (shard servers or OpenSearch nodes), each capped as one node. */
  List<ProcessHandle> storageNodes();

  /** Every process of the system, for CPU accounting (the storage nodes among them). */
  List<ProcessHandle> processes();
}
