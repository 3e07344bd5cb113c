package io.evenkeel.ingest.testing;

import io.evenkeel.ingest.source.DeadLetterSerializer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

/** The reasons of a dead-letter topic's letters, read from its start by a consumer group of its own. */
public final class DeadLetterReasons {
  private DeadLetterReasons() {}

  /**
   * Reads until {@code expected} letters arrived or {@code wait} passed, then for {@code linger} more (so that a
   * caller sees letters beyond those it expected).
   */
  public static List<String> read(String bootstrapServers, String topic, int expected, Duration wait,
      Duration linger) {
    return TopicRecords.read(bootstrapServers, topic, expected, wait, linger,
        record -> new String(record.headers().lastHeader(DeadLetterSerializer.REASON_HEADER).value(),
            StandardCharsets.UTF_8));
  }
}
