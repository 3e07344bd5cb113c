package io.evenkeel.shard.warmup;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SearchWarmUpTest {
  @TempDir Path dir;

  @Test
  void writesAndSearchesAThrowawayShardAndLeavesNothing() throws Exception {
    Path directory = dir.resolve("warm-up");
    // What a warm-up stopped halfway left is cleared first.
    Files.createDirectories(directory.resolve("shard-0"));
    Files.writeString(directory.resolve("shard-0").resolve("stale"), "left by a stopped warm-up");

    SearchWarmUp.Done done = SearchWarmUp.run(directory);

    assertThat(directory).doesNotExist();
    assertThat(done.fewestFound()).as("every search found rows or groups, so its per-row code ran").isPositive();
  }
}
