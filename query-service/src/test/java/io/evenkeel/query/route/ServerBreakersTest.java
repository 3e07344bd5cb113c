package io.evenkeel.query.route;

import static org.assertj.core.api.Assertions.assertThat;

import io.evenkeel.cluster.placement.ShardAddress;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class ServerBreakersTest {
  private final AtomicLong now = new AtomicLong(1_000_000);
  private final ServerBreakers breakers = new ServerBreakers(now::get);
  private final ShardAddress stalled = new ShardAddress("127.0.0.1", 1);
  private final ShardAddress busy = new ShardAddress("127.0.0.1", 2);

  @Test
  void aServerThatAnswersNothingIsSkippedThenProbedOneCallAtATime() {
    breakers.answered(stalled);
    now.addAndGet(ServerBreakers.SILENCE_MS);
    for (int i = 0; i < ServerBreakers.FAILURES_TO_OPEN - 1; i++) {
      breakers.failed(stalled);
      assertThat(breakers.refusal(stalled)).as("after %d failures", i + 1).isNull();
    }
    breakers.failed(stalled);
    assertThat(breakers.refusal(stalled)).contains("not called for 5 s");

    now.addAndGet(ServerBreakers.OPEN_MS);
    assertThat(breakers.refusal(stalled)).as("the probe").isNull();
    assertThat(breakers.refusal(stalled)).as("a second call while the probe runs").isNotNull();
    breakers.failed(stalled);
    assertThat(breakers.refusal(stalled)).as("the probe failed: open again").isNotNull();

    now.addAndGet(ServerBreakers.OPEN_MS);
    assertThat(breakers.refusal(stalled)).isNull();
    breakers.released(stalled);
    assertThat(breakers.refusal(stalled)).as("a cancelled probe lets another one go").isNull();
    breakers.answered(stalled);
    assertThat(breakers.refusal(stalled)).isNull();
    assertThat(breakers.refusal(stalled)).as("closed: every call goes").isNull();
  }

  /** Calls that time out on a server that keeps answering others (it is busy, not stalled) never open its breaker. */
  @Test
  void aBusyServerThatStillAnswersSomeCallsIsNeverCutOff() {
    for (int i = 0; i < 20; i++) {
      now.addAndGet(1_000);
      breakers.failed(busy);
      breakers.failed(busy);
      breakers.failed(busy);
      if (i % 2 == 0) {
        breakers.answered(busy);
      }
      assertThat(breakers.refusal(busy)).as("round %d", i).isNull();
    }
  }

  @Test
  void aServerThatAnsweredAnotherCallSinceOneWasSentIsAliveAndOnlyBusy() {
    breakers.answered(busy);
    long sent = breakers.nowMs();
    now.addAndGet(1);
    assertThat(breakers.answeredSince(busy, sent)).as("nothing answered since the call was sent").isFalse();
    assertThat(breakers.answeredSince(stalled, sent)).as("never answered").isFalse();
    breakers.answered(busy);
    assertThat(breakers.answeredSince(busy, sent)).isTrue();
  }
}
