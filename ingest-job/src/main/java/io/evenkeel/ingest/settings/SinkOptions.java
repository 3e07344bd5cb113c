package io.evenkeel.ingest.settings;

import picocli.CommandLine.Option;

/**
 * The ingest job's flags of its writes: the per-row batching window, and the shard sink's batches, lanes, buffers,
 * spill and deadline. A picocli mixin.
 */
public final class SinkOptions {
  @Option(names = "--batch-window-ms",
      description = "Write batching window per row; 0 disables batching. (default: ${DEFAULT-VALUE})")
  private long batchWindowMs = 200;

  @Option(names = "--sink-batch-size", description = "Changes per write request. (default: ${DEFAULT-VALUE})")
  private int sinkBatchSize = 1_000;

  @Option(names = "--sink-batch-bytes",
      description = "Bytes per write request at most (a single bigger change goes alone), well under the shard"
          + " servers' 64 MiB request limit. (default: ${DEFAULT-VALUE})")
  private long sinkBatchBytes = 4L << 20;

  @Option(names = "--sink-linger-ms", description = "How long a partial batch may wait. (default: ${DEFAULT-VALUE})")
  private long sinkLingerMs = 50;

  @Option(names = "--sink-lanes", arity = "1", paramLabel = "true|false",
      description = "Isolated lanes: while the monitor shows a tenant hot (its share of the writes above the hot"
          + " threshold), its changes to each shard go in that shard's hot lane, so a backlog of them does not hold"
          + " other tenants' changes; false sends every change in one lane per shard."
          + " (default: ${DEFAULT-VALUE})")
  private boolean sinkLanes = true;

  @Option(names = "--sink-surge-changes",
      description = "With the lanes: a tenant above the hot threshold of one second of a sink subtask's changes, and"
          + " with at least this many, takes the hot lane at once, before the monitor's window shows it; 0 waits for"
          + " the monitor. (default: ${DEFAULT-VALUE})")
  private long sinkSurgeChanges = 200;

  @Option(names = "--sink-hot-buffer",
      description = "How many changes of hot tenants one shard's hot lane may buffer in memory before the sink"
          + " backpressures or spills. (default: ${DEFAULT-VALUE})")
  private int sinkHotBuffer = 20_000;

  @Option(names = "--sink-lane-buffer",
      description = "How many changes one shard's normal lane may buffer in memory while its shard is slow or"
          + " away, before the sink backpressures or spills. (default: ${DEFAULT-VALUE})")
  // Five batches: the next ones ready while a request is in flight. Deeper buys a busy shard nothing (Kafka holds the
  // backlog) and costs at every checkpoint, which copies every unacknowledged change of the lanes.
  private int sinkLaneBuffer = 5_000;

  @Option(names = "--sink-lane-buffer-bytes",
      description = "How many bytes of changes one shard's lane (normal or hot) may buffer in memory before the"
          + " sink backpressures or spills. (default: ${DEFAULT-VALUE})")
  private long sinkLaneBufferBytes = 32L << 20;

  @Option(names = "--sink-spill-after-ms",
      description = "A lane at its bound whose shard has not answered its request for this long spills its next"
          + " changes to disk, so a stalled shard delays only its own rows; until then the sink backpressures."
          + " (default: ${DEFAULT-VALUE})")
  private long sinkSpillAfterMs = 5_000;

  @Option(names = "--sink-spill-bytes",
      description = "How many bytes of changes the lanes of one sink subtask may hold on disk in all, before the"
          + " sink backpressures; 0 never spills. (default: ${DEFAULT-VALUE})")
  private long sinkSpillBytes = 4L << 30;

  @Option(names = "--sink-spill-dir",
      description = "Where lanes spill (a directory private to the owner is made in it); default: a new temporary"
          + " directory.")
  private String sinkSpillDir;

  @Option(names = "--sink-request-timeout-ms",
      description = "Deadline of one write request. (default: ${DEFAULT-VALUE})")
  private long sinkRequestTimeoutMs = 30_000;

  /** The flags as parsed, unchecked. */
  SinkSettings settings() {
    return new SinkSettings(batchWindowMs, sinkBatchSize, sinkBatchBytes, sinkLingerMs, sinkLanes, sinkSurgeChanges,
        sinkHotBuffer, sinkLaneBuffer, sinkLaneBufferBytes, sinkSpillAfterMs, sinkSpillBytes, sinkSpillDir,
        sinkRequestTimeoutMs);
  }
}
