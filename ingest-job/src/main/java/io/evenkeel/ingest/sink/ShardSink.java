package io.evenkeel.ingest.sink;

import io.evenkeel.ingest.route.RoutedChange;
import io.evenkeel.ingest.settings.IngestSettings;
import java.util.Collection;
import java.util.List;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.StatefulSinkWriter;
import org.apache.flink.api.connector.sink2.SupportsWriterState;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.core.io.SimpleVersionedSerializer;

/**
 * Sends routed changes one hop to their shard's primary, in batches per shard. A checkpoint holds every change
 * before its barrier that no shard has acknowledged yet ({@link PendingChanges}), and a restore sends them again (at
 * least once); the shards' version check makes the replay harmless, so the index ends as if each change had been
 * applied exactly once.
 */
public final class ShardSink implements Sink<RoutedChange>, SupportsWriterState<RoutedChange, PendingChanges> {
  private static final long serialVersionUID = 1L;

  private final IngestSettings settings;

  public ShardSink(IngestSettings settings) {
    this.settings = settings;
  }

  @Override
  public StatefulSinkWriter<RoutedChange, PendingChanges> createWriter(WriterInitContext context) {
    return new ShardSinkWriter(settings, context, List.of());
  }

  @Override
  public StatefulSinkWriter<RoutedChange, PendingChanges> restoreWriter(WriterInitContext context,
      Collection<PendingChanges> recovered) {
    return new ShardSinkWriter(settings, context, recovered);
  }

  @Override
  public SimpleVersionedSerializer<PendingChanges> getWriterStateSerializer() {
    return new PendingChanges.Serializer();
  }
}
