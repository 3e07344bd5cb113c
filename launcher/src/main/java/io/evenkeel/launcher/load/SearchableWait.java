package io.evenkeel.launcher.load;

import io.evenkeel.launcher.sql.SqlClient;
import java.io.IOException;
import java.io.PrintStream;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * {@code load --wait}: the loaded rows are searchable once (1) the ingest job's consumer group has committed, on every
 * partition the load wrote to, an offset past the load's last record there, and then (2) every shard has refreshed.
 *
 * <p>(1) means the shards hold every change of the load: the job commits its offsets when a checkpoint completes, and
 * a checkpoint completes only after the sink has sent every change that came before its barrier and the shards have
 * acknowledged them (written to their translogs and applied to their indexes). (2) is the query service's {@code POST
 * /refresh}, which makes every acknowledged write searchable. Nothing is asked row by row, so the wait costs the
 * cluster almost nothing, whatever the load's size.
 */
final class SearchableWait {
  private static final Duration POLL = Duration.ofMillis(100);

  private final Admin kafka;
  private final String group;
  private final String topic;
  private final PrintStream out;

  SearchableWait(Admin kafka, String group, String topic, PrintStream out) {
    this.kafka = kafka;
    this.group = group;
    this.topic = topic;
    this.out = out;
  }

  /**
   * Waits until the rows whose last offsets per partition are {@code lastOffsets} are searchable; throws if {@code
   * timeout} passes first, saying how far the ingest job is behind.
   */
  void await(Map<Integer, Long> lastOffsets, SqlClient sql, Duration timeout)
      throws IOException, InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    long nextProgress = System.nanoTime() + Duration.ofSeconds(2).toNanos();
    while (true) {
      long behind = behind(lastOffsets);
      if (behind == 0) {
        break;
      }
      if (System.nanoTime() > deadline) {
        throw new IOException("after " + timeout.toSeconds() + " s the ingest job (Kafka consumer group " + group
            + ") has still not written " + behind + " records of the load; is it running?");
      }
      if (System.nanoTime() > nextProgress) {
        out.printf("waiting: the ingest job is %,d records behind the load%n", behind);
        out.flush();
        nextProgress = System.nanoTime() + Duration.ofSeconds(2).toNanos();
      }
      Thread.sleep(POLL.toMillis());
    }
    try {
      sql.refresh();
    } catch (SqlClient.SqlError e) {
      throw new IOException("the query service could not refresh the shards: " + e.getMessage(), e);
    }
  }

  /** How many of the load's records the group's committed offsets have not passed yet. */
  private long behind(Map<Integer, Long> lastOffsets) throws IOException, InterruptedException {
    Map<TopicPartition, OffsetAndMetadata> committed;
    try {
      committed = kafka.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get();
    } catch (ExecutionException e) {
      throw new IOException("cannot read the committed offsets of consumer group " + group + ": "
          + e.getCause().getMessage(), e.getCause());
    }
    long behind = 0;
    for (Map.Entry<Integer, Long> last : lastOffsets.entrySet()) {
      OffsetAndMetadata offset = committed.get(new TopicPartition(topic, last.getKey()));
      // A committed offset is the next record the group will read.
      long next = offset == null ? 0 : offset.offset();
      behind += Math.max(0, last.getValue() + 1 - next);
    }
    return behind;
  }
}
