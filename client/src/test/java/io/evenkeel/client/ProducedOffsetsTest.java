package io.evenkeel.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

class ProducedOffsetsTest {
  private static RecordMetadata at(String topic, int partition, long offset) {
    return new RecordMetadata(new TopicPartition(topic, partition), offset, 0, 0L, 8, 64);
  }

  @Test
  void keepsTheLastOffsetOfEachPartitionWhateverOrderTheCallbacksComeIn() throws Exception {
    ProducedOffsets sent = new ProducedOffsets();
    ExecutorService threads = Executors.newFixedThreadPool(4);
    for (int i = 0; i < 4_000; i++) {
      long offset = i;
      threads.execute(() -> sent.onCompletion(at("logs", (int) (offset % 3), offset), null));
    }
    threads.shutdown();
    assertThat(threads.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
    sent.record(at("other", 0, 5));
    sent.record(at("logs", 0, -1)); // no offset (acks=0): nothing to wait for
    assertThat(sent.lastOffsets("logs")).isEqualTo(Map.of(0, 3_999L, 1, 3_997L, 2, 3_998L));
    assertThat(sent.lastOffsets("other")).isEqualTo(Map.of(0, 5L));
    assertThat(sent.lastOffsets("none")).isEmpty();
    assertThat(sent.failure()).isNull();
  }

  @Test
  void aFailedSendIsKeptUntilCleared() {
    ProducedOffsets sent = new ProducedOffsets();
    sent.onCompletion(at("logs", 0, 7), null);
    IllegalStateException first = new IllegalStateException("record too large");
    sent.onCompletion(null, first);
    sent.onCompletion(null, new IllegalStateException("later"));
    assertThat(sent.failure()).isSameAs(first);
    sent.clear();
    assertThat(sent.failure()).isNull();
    assertThat(sent.lastOffsets("logs")).isEmpty();
  }
}
