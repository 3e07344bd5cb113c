package io.evenkeel.benchmarks.replay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.evenkeel.schemas.ChangeOp;
import io.evenkeel.schemas.TransactionLogChange;
import io.evenkeel.schemas.codec.AvroTrust;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.avro.file.DataFileReader;
import org.apache.avro.specific.SpecificDatumReader;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Trace files as the generator writes them: deterministic, shaped as their spec says, and self-describing. */
class TraceFilesTest {
  private static final TraceSpec SPEC = new TraceSpec(4, 2_000, 3, 1, 1.0, 1_000, 0.3, new double[] {2}, 5);

  @TempDir Path dir;

  @BeforeAll
  static void trust() {
    AvroTrust.install();
  }

  private static List<TransactionLogChange> read(Path file, Map<String, String> metadata) throws Exception {
    List<TransactionLogChange> changes = new ArrayList<>();
    try (DataFileReader<TransactionLogChange> reader =
        new DataFileReader<>(file.toFile(), new SpecificDatumReader<>(TransactionLogChange.class))) {
      reader.getMetaKeys().forEach(key -> metadata.put(key, reader.getMetaString(key)));
      reader.forEach(changes::add);
    }
    return changes;
  }

  @Test
  void theSameSpecWritesTheSameChangesShapedAsItSays() throws Exception {
    Path first = dir.resolve("first.avro");
    Path second = dir.resolve("second.avro");
    long written = TraceGenerator.write(SPEC, first, progress -> { });
    TraceGenerator.write(SPEC, second, progress -> { });
    Map<String, String> metadata = new HashMap<>();
    List<TransactionLogChange> changes = read(first, metadata);
    assertThat(read(second, new HashMap<>())).isEqualTo(changes);
    assertThat(TraceSpec.fromMetadata(metadata).toString()).isEqualTo(SPEC.toString());

    // 1 s at 6,000 a second, then 3 s at 2,000.
    assertThat(written).isEqualTo(changes.size()).isBetween(11_990L, 12_010L);
    long surge = changes.stream().filter(c -> c.getModifiedTime() < 1_000).count();
    long steady = changes.stream().filter(c -> c.getModifiedTime() >= 3_000).count();
    assertThat(surge).isBetween(5_990L, 6_010L);
    assertThat(steady).isBetween(1_990L, 2_010L);
    long updates = changes.stream().filter(c -> c.getOp() == ChangeOp.UPDATE).count();
    assertThat(updates / (double) changes.size()).isBetween(0.27, 0.33);
    assertThat(changes).allMatch(c -> c.getModifiedTime() >= 0 && c.getModifiedTime() < 4_000
        && c.getCreatedTime() <= c.getModifiedTime() && c.getRowId() >= 0 && c.getRowId() < changes.size());

    // The hot group moves at 2 s: the most frequent tenant before is not the most frequent after.
    assertThat(hottest(changes, 0, 2_000)).isNotEqualTo(hottest(changes, 2_000, 4_000));
  }

  private static long hottest(List<TransactionLogChange> changes, long from, long to) {
    Map<Long, Long> counts = new HashMap<>();
    changes.stream().filter(c -> c.getOp() == ChangeOp.INSERT && c.getModifiedTime() >= from
        && c.getModifiedTime() < to).forEach(c -> counts.merge(c.getTenantId(), 1L, Long::sum));
    return counts.entrySet().stream().max(Map.Entry.comparingByValue()).orElseThrow().getKey();
  }

  @Test
  void aSpecThatCannotBeAndAFileThatIsNoTraceAreRefused() {
    assertThatThrownBy(() -> new TraceSpec(10, 0, 1, 0, 1, 10, 0.3, new double[0], 1))
        .hasMessageContaining("rate > 0");
    assertThatThrownBy(() -> TraceSpec.fromMetadata(Map.of("avro.codec", "deflate")))
        .hasMessageContaining("not an Evenkeel trace: no evenkeel.trace.");
  }
}
