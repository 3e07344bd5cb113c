package io.evenkeel.ingest.source;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;

class DeadLettersTest {
  private final MockProducer<byte[], byte[]> kafka = new MockProducer<>(false, null, new ByteArraySerializer(),
      new ByteArraySerializer());

  private static DeadLetter letter(long offset) {
    DeadLetter letter = new DeadLetter();
    letter.topic = "transaction-logs";
    letter.partition = 0;
    letter.offset = offset;
    letter.value = "not avro".getBytes(StandardCharsets.UTF_8);
    letter.reason = "bad magic";
    return letter;
  }

  @Test
  void deadLettersAreSentAtOnceAndAwaitedUntilKafkaHasThem() throws Exception {
    try (DeadLetters letters = new DeadLetters(kafka, "dead-letters")) {
      letters.send(letter(7));
      letters.send(letter(8));
      assertThat(kafka.history()).hasSize(2);
      assertThat(kafka.history().get(0).headers().lastHeader(DeadLetterSerializer.SOURCE_HEADER).value())
          .isEqualTo("transaction-logs/0/7".getBytes(StandardCharsets.UTF_8));
      assertThat(letters.pending()).as("not acknowledged yet").isTrue();
      letters.awaitAll();
      assertThat(letters.pending()).isFalse();
    }
  }

  @Test
  void aDeadLetterKafkaRefusedFailsTheWaitSoTheJobRestartsAndReadsItAgain() {
    try (DeadLetters letters = new DeadLetters(kafka, "dead-letters")) {
      letters.send(letter(7));
      kafka.errorNext(new RecordTooLargeException("too large"));
      assertThatThrownBy(letters::awaitAll).isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("too large");
    }
  }
}
