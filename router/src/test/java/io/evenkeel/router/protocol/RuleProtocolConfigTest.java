package io.evenkeel.router.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class RuleProtocolConfigTest {
  @Test
  void defaultsAreTenSecondsWithAFiveSecondVoteWindowAndOneSecondOfSkew() {
    RuleProtocolConfig config = RuleProtocolConfig.builder("/evenkeel/prod", 64).build();
    assertThat(config.effectiveDelayMs()).isEqualTo(10_000);
    assertThat(config.voteTimeoutMs()).isEqualTo(5_000);
    assertThat(config.maxClockSkewMs()).isEqualTo(1_000);
    assertThat(config.root()).isEqualTo("/evenkeel/prod");
  }

  @Test
  void badSettingsAreRejectedNamingTheSettingAndTheValue() {
    assertThatThrownBy(() -> RuleProtocolConfig.builder("evenkeel/prod", 8).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("root must be an absolute ZooKeeper path such as /evenkeel/prod; got: 'evenkeel/prod'");
    assertThatThrownBy(() -> RuleProtocolConfig.builder("/evenkeel/prod/", 8).build())
        .hasMessage("root must be an absolute ZooKeeper path such as /evenkeel/prod; got: '/evenkeel/prod/'");
    assertThatThrownBy(() -> RuleProtocolConfig.builder("/evenkeel//prod", 8).build())
        .hasMessageStartingWith("root must be a valid ZooKeeper path; got: '/evenkeel//prod' (");
    assertThatThrownBy(() -> RuleProtocolConfig.builder("/evenkeel/prod", 0).build())
        .hasMessage("numShards must be >= 1; got: 0");
    assertThatThrownBy(() -> RuleProtocolConfig.builder("/evenkeel/prod", 8).effectiveDelay(Duration.ofMillis(1)).build())
        .hasMessage("effectiveDelay must be at least 2 ms; got: PT0.001S");
    assertThatThrownBy(() -> RuleProtocolConfig.builder("/evenkeel/prod", 8)
            .effectiveDelay(Duration.ofMillis(400)).maxClockSkew(Duration.ofMillis(200)).build())
        .hasMessageStartingWith("maxClockSkew must be below effectiveDelay / 2 (200 ms)")
        .hasMessageEndingWith("; got: 200 ms");
  }

  @Test
  void idsThatCannotNameAZnodeAreRejected() {
    RuleProtocolConfig config = RuleProtocolConfig.builder("/evenkeel/prod", 8).build();
    assertThatThrownBy(() -> new Participant(null, config, "ingest/3"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("participant id must be a non-empty name without '/'; got: 'ingest/3'");
    assertThatThrownBy(() -> new RuleProposer(null, config, "", Duration.ZERO))
        .hasMessage("proposer id must be a non-empty name without '/'; got: ''");
    assertThatThrownBy(() -> new RuleMaster(null, config, "master", 0))
        .hasMessage("retainedRounds must be >= 1; got: 0");
  }
}
