package io.evenkeel.embedded;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.channels.FileChannel;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Ports handed out are below the ephemeral range, never handed out twice, and held for this JVM by a lock on their
 * file, which another JVM's {@code FreePorts} (or this one) cannot take.
 */
class FreePortsTest {
  @Test
  void portsAreDistinctBelowTheEphemeralRangeAndLockedForThisJvm() throws Exception {
    Set<Integer> seen = new HashSet<>();
    for (int i = 0; i < 20; i++) {
      for (int port : FreePorts.pick(3)) {
        assertThat(port).isBetween(20_000, 32_767);
        assertThat(seen.add(port)).as("port %d handed out twice", port).isTrue();
      }
    }
    int base = FreePorts.consecutive(13);
    for (int port = base; port < base + 13; port++) {
      assertThat(seen.add(port)).as("port %d of the range handed out before", port).isTrue();
    }
    Path file = Path.of(System.getProperty("java.io.tmpdir"), "evenkeel-ports", Integer.toString(base + 12));
    try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
      assertThatThrownBy(channel::tryLock).as("held by this JVM").isInstanceOf(OverlappingFileLockException.class);
    }
  }
}
