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
 * {@code load --wait}: the loaded rows are searchable once (1) the ingest job's written offsets have passed, on every
 * partition the load wrote to, the load's last record there, and then (2) every shard has refreshed.
 *
 * <p>(1) means the shards hold every change of the load: the job's sink records, per partition, the offset up to which
 * every change is acknowledged by its shard (written to its translog and applied to its index), as the committed
 * offsets of a consumer group of their own. (2) is the query service's {@code POST /refresh}, which makes every
 * acknowledged write searchable; while some shards cannot answer it (a dead server's copies failing over) it is asked
 * again until the timeout. Nothing is asked row by row, so the wait costs the cluster almost nothing, whatever
 * the load's size.
 */
final class SearchableWait {
  private static final Duration POLL = Duration.ofMillis(100);
  private static final Duration REFRESH_RETRY = Duration.ofMillis(500);

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
        throw new IOException("after " + timeout.toSeconds() + " s the ingest job has still not written " + behind
            + " records of the load (its written offsets, group " + group + "); is it running?");
      }
      if (System.nanoTime() > nextProgress) {
        out.printf("waiting: the ingest job is %,d records behind the load%n", behind);
        out.flush();
        nextProgress = System.nanoTime() + Duration.ofSeconds(2).toNanos();
      }
      Thread.sleep(POLL.toMillis());
    }
    refresh(sql, deadline, out);
  }

  /**
   * Refreshes every shard. A refresh that some shards could not answer (a server died and its replicas have not taken
   * over yet, or the service is busy) is asked again until {@code deadline}: the rows are acknowledged, only their
   * visibility waits.
   */
  static void refresh(SqlClient sql, long deadline, PrintStream out) throws IOException, InterruptedException {
    long nextProgress = System.nanoTime() + Duration.ofSeconds(2).toNanos();
    while (true) {
      try {
        sql.refresh();
        return;
      } catch (SqlClient.SqlError e) {
        if (!e.transientFailure() || System.nanoTime() > deadline) {
          throw new IOException("the query service could not refresh the shards: " + e.getMessage(), e);
        }
        if (System.nanoTime() > nextProgress) {
          out.printf("waiting: the shards could not all refresh yet (%s)%n", e.getMessage());
          out.flush();
          nextProgress = System.nanoTime() + Duration.ofSeconds(2).toNanos();
        }
        Thread.sleep(REFRESH_RETRY.toMillis());
      }
    }
  }

  /** How many of the load's records the written offsets have not passed yet. */
  private long behind(Map<Integer, Long> lastOffsets) throws IOException, InterruptedException {
    Map<TopicPartition, OffsetAndMetadata> committed;
    try {
      committed = kafka.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get();
    } catch (ExecutionException e) {
      throw new IOException("cannot read the written offsets (consumer group " + group + "): "
          + e.getCause().getMessage(), e.getCause());
    }
    long behind = 0;
    for (Map.Entry<Integer, Long> last : lastOffsets.entrySet()) {
      OffsetAndMetadata offset = committed.get(new TopicPartition(topic, last.getKey()));
      // Kafka's convention: a committed offset is the next record to read, one past the last written.
      long next = offset == null ? 0 : offset.offset();
      behind += Math.max(0, last.getValue() + 1 - next);
    }
    return behind;
  }
}
