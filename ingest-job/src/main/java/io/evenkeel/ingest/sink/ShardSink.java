package io.evenkeel.ingest.sink;

import io.evenkeel.ingest.route.RoutedChange;
import io.evenkeel.ingest.settings.IngestSettings;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;

/**
 * Sends routed changes one hop to their shard's primary, in batches per shard. Each checkpoint waits until every
 * change before its barrier is acknowledged by a shard (at least once); the shards' version check makes the replay
 * after a restore harmless, so the index ends as if each change had been applied exactly once.
 */
public final class ShardSink implements Sink<RoutedChange> {
  private static final long serialVersionUID = 1L;

  private final IngestSettings settings;

  public ShardSink(IngestSettings settings) {
    this.settings = settings;
  }

  @Override
  public SinkWriter<RoutedChange> createWriter(WriterInitContext context) {
    return new ShardSinkWriter(settings, context);
  }
}
