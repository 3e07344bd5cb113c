package io.evenkeel.launcher.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.evenkeel.launcher.cli.UserError;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class StackLayoutTest {
  @TempDir Path dataDir;

  @Test
  void aNewDirectoryGetsTheDefaultAndARestartKeepsItsRecordedLayout() throws Exception {
    assertThat(StackLayout.choose(null, null, StackLayout.recorded(dataDir))).isEqualTo(new StackLayout(8, 1));
    new StackLayout(12, 3).claim(dataDir);
    assertThat(StackLayout.choose(null, null, StackLayout.recorded(dataDir))).isEqualTo(new StackLayout(12, 3));
    assertThat(StackLayout.choose(16, null, Optional.empty())).isEqualTo(new StackLayout(16, 1));
  }

  @Test
  void aRestartWithOtherNumbersIsRefusedNamingTheRecordedOnes() throws Exception {
    new StackLayout(12, 3).claim(dataDir);
    assertThatThrownBy(() -> StackLayout.choose(8, null, StackLayout.recorded(dataDir)).claim(dataDir))
        .isInstanceOf(UserError.class).hasMessageContaining("holds a stack of 12 shards on 3 shard servers");
  }
}
