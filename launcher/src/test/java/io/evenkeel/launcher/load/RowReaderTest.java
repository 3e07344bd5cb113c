package io.evenkeel.launcher.load;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.evenkeel.schemas.ChangeOp;
import io.evenkeel.schemas.TransactionLogChange;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RowReaderTest {
  @TempDir Path dir;

  /** Every change and every bad line of a file, in order, as "ok tenant:row" or "line n: reason". */
  private List<String> readAll(String name, String content, List<TransactionLogChange> changes) throws IOException {
    Path file = dir.resolve(name);
    Files.writeString(file, content);
    List<String> outcomes = new ArrayList<>();
    try (RowReader reader = RowReader.open(file, RowReader.Format.of(file))) {
      while (true) {
        try {
          TransactionLogChange change = reader.next();
          if (change == null) {
            return outcomes;
          }
          changes.add(change);
          outcomes.add("ok " + change.getTenantId() + ":" + change.getRowId());
        } catch (BadLineException bad) {
          outcomes.add(bad.getMessage());
        }
      }
    }
  }

  @Test
  void malformedJsonLinesAreReportedWithTheirLineNumbersAndTheReadGoesOn() throws IOException {
    List<TransactionLogChange> changes = new ArrayList<>();
    List<String> outcomes = readAll("rows.jsonl", String.join("\n",
        "{\"tenant_id\": 1, \"row_id\": 10, \"created_time\": 1700000000000, \"price\": \"19.9\", \"title\": \"red shoes\"}",
        "{\"tenant_id\": 1, \"row_id\": 11, \"created_time\": 17",
        "{\"tenant_id\": \"one\", \"row_id\": 12, \"created_time\": 1700000000000}",
        "{\"tenant_id\": 1, \"row_id\": 13}",
        "",
        "{\"tenant_id\": 1, \"row_id\": 14, \"created_time\": 1700000000000, \"colour\": \"red\"}",
        "{\"tenant_id\": 1, \"row_id\": 15, \"created_time\": 1700000000000, \"price\": \"1.234\"}",
        "{\"tenant_id\": 1, \"row_id\": 16, \"created_time\": 1700000000000, \"status\": 1.5}",
        "[1, 2]",
        "{\"tenant_id\": 1, \"row_id\": 17, \"created_time\": 1700000000000, \"op\": \"upsert\"}",
        "{\"tenant_id\": 1, \"row_id\": 18, \"created_time\": null}",
        "{\"op\": \"DELETE\", \"tenant_id\": 2, \"row_id\": 20, \"created_time\": 1700000000000, \"version\": 7}",
        "{\"tenant_id\": 1, \"row_id\": 21, \"row_id\": 22, \"created_time\": 1700000000000}",
        "{\"tenant_id\": 1, \"row_id\": 23, \"created_time\": 1700000000000, \"title\": \"a\", \"title\": null}",
        "{\"tenant_id\": 1, \"row_id\": 24, \"created_time\": 1700000000000} {\"tenant_id\": 1}",
        "{\"tenant_id\": 1, \"row_id\": 25, \"created_time\": 1700000000000, \"status\": 3000000000}",
        "{\"tenant_id\": 1, \"row_id\": 26, \"created_time\": 1700000000000, \"title\": 5}",
        "{\"tenant_id\": 1, \"row_id\": 99999999999999999999, \"created_time\": 1700000000000}"),
        changes);

    assertThat(outcomes.get(0)).isEqualTo("ok 1:10");
    assertThat(outcomes.get(1)).startsWith("line 2: bad JSON: Unexpected end-of-input");
    assertThat(outcomes.get(2)).isEqualTo("line 3: tenant_id must be an integer; got string \"one\"");
    assertThat(outcomes.get(3)).isEqualTo("line 4: missing created_time (every line needs tenant_id, row_id, "
        + "created_time)");
    assertThat(outcomes.get(4)).startsWith("line 6: unknown column 'colour'; columns are [op, version, tenant_id, ");
    assertThat(outcomes.get(5)).isEqualTo("line 7: price 1.234 has more than 2 fractional digits");
    assertThat(outcomes.get(6)).isEqualTo("line 8: status must be an integer; got number 1.5");
    assertThat(outcomes.get(7)).isEqualTo("line 9: expected a JSON object with column names as keys; got array");
    assertThat(outcomes.get(8)).isEqualTo("line 10: op must be INSERT, UPDATE or DELETE; got: 'upsert'");
    assertThat(outcomes.get(9)).isEqualTo("line 11: created_time cannot be null");
    assertThat(outcomes.get(10)).isEqualTo("ok 2:20");
    assertThat(outcomes.get(11)).isEqualTo("line 13: row_id is given twice");
    assertThat(outcomes.get(12)).isEqualTo("line 14: title is given twice");
    assertThat(outcomes.get(13)).isEqualTo("line 15: bad JSON: more after the object: {");
    assertThat(outcomes.get(14)).isEqualTo("line 16: status 3000000000 is out of range [-2147483648, 2147483647]");
    assertThat(outcomes.get(15)).isEqualTo("line 17: title must be a string; got number 5");
    assertThat(outcomes.get(16)).isEqualTo("line 18: row_id 99999999999999999999 is out of range "
        + "[-9223372036854775808, 9223372036854775807]");
    assertThat(outcomes).hasSize(17);

    TransactionLogChange first = changes.get(0);
    assertThat(first.getOp()).isEqualTo(ChangeOp.INSERT);
    assertThat(first.getPrice()).isEqualTo(new BigDecimal("19.90"));
    assertThat(first.getTitle()).isEqualTo("red shoes");
    assertThat(first.getStatus()).as("a missing column is NULL").isNull();
    assertThat(first.getVersion()).as("derived from the clock in microseconds")
        .isGreaterThan(System.currentTimeMillis() * 1_000 - 60_000_000L);
    TransactionLogChange delete = changes.get(1);
    assertThat(delete.getOp()).isEqualTo(ChangeOp.DELETE);
    assertThat(delete.getVersion()).as("a version given in the file").isEqualTo(7);
  }

  @Test
  void linesEndAtLfOrCrLfMayBeLongerThanTheBufferAndAreUtf8() throws IOException, BadLineException {
    String longTitle = "é".repeat(70_000) + "x"; // 140,001 bytes: more than the reader's first buffer
    List<TransactionLogChange> changes = new ArrayList<>();
    List<String> outcomes = readAll("ends.jsonl", "{\"tenant_id\": 1, \"row_id\": 1, \"created_time\": 5}\r\n"
        + " \t\r\n"
        + "\f\u000B\n" // white space to Java, as a String's isBlank had it, though not JSON's
        + "\u3000\u2003\n"
        + "{\"tenant_id\": 1, \"row_id\": 2, \"created_time\": 5, \"title\": \"" + longTitle + "\"}\n"
        + "{\"tenant_id\": 1, \"row_id\": 3, \"created_time\": 5, \"title\": \"店铺 \uD83D\uDE00\"}\r\n"
        + "{\"tenant_id\": 1, \"row_id\": 4, \"created_time\": 5}", changes);
    assertThat(outcomes).containsExactly("ok 1:1", "ok 1:2", "ok 1:3", "ok 1:4");
    assertThat(changes.get(1).getTitle()).isEqualTo(longTitle);
    assertThat(changes.get(2).getTitle()).isEqualTo("店铺 \uD83D\uDE00");

    Path file = dir.resolve("latin1.jsonl");
    byte[] latin1 = "{\"tenant_id\": 1, \"row_id\": 5, \"created_time\": 5, \"title\": \"caf\u00e9\"}\n"
        .getBytes(java.nio.charset.StandardCharsets.ISO_8859_1);
    Files.write(file, latin1);
    try (RowReader reader = RowReader.open(file, RowReader.Format.JSONL)) {
      assertThatThrownBy(reader::next).isInstanceOf(BadLineException.class)
          .hasMessageStartingWith("line 1: bad JSON: Invalid UTF-8");
      assertThat(reader.next()).isNull();
    }
  }

  @Test
  void derivedVersionsIncreaseStrictlyInFileOrder() throws IOException {
    StringBuilder file = new StringBuilder();
    for (int i = 0; i < 1_000; i++) {
      file.append("{\"tenant_id\": 1, \"row_id\": 1, \"created_time\": 5}\n");
    }
    List<TransactionLogChange> changes = new ArrayList<>();
    readAll("same-row.jsonl", file.toString(), changes);
    for (int i = 1; i < changes.size(); i++) {
      assertThat(changes.get(i).getVersion()).isGreaterThan(changes.get(i - 1).getVersion());
    }
  }

  @Test
  void csvRowsAreTypedByTheHeaderAndEmptyValuesAreNull() throws IOException {
    List<TransactionLogChange> changes = new ArrayList<>();
    List<String> outcomes = readAll("rows.csv", String.join("\n",
        "tenant_id,row_id,created_time,title,price,status,op",
        "1,10,1700000000000,\"shoes, red\",19.90,,",
        "1,11,1700000000000,\"a title",
        "spanning two lines\",5,2,UPDATE",
        "1,12,1700000000000,short row",
        "1,x13,1700000000000,t,1,1,",
        "2,20,1700000000000,,,,DELETE") + "\n", changes);

    assertThat(outcomes).containsExactly(
        "ok 1:10",
        "ok 1:11",
        "line 5: 4 values for the header's 7 columns",
        "line 6: row_id must be an integer; got: 'x13'",
        "ok 2:20");
    assertThat(changes.get(0).getTitle()).isEqualTo("shoes, red");
    assertThat(changes.get(0).getStatus()).isNull();
    assertThat(changes.get(0).getOp()).isEqualTo(ChangeOp.INSERT);
    assertThat(changes.get(1).getTitle()).isEqualTo("a title\nspanning two lines");
    assertThat(changes.get(1).getOp()).isEqualTo(ChangeOp.UPDATE);
    assertThat(changes.get(1).getPrice()).isEqualTo(new BigDecimal("5.00"));
    assertThat(changes.get(2).getOp()).isEqualTo(ChangeOp.DELETE);
  }

  @Test
  void aCsvHeaderWithAnUnknownColumnEndsTheRead() throws IOException {
    Path file = dir.resolve("bad-header.csv");
    Files.writeString(file, "tenant_id,row_id,created_time,colour\n1,2,3,red\n");
    try (RowReader reader = RowReader.open(file, RowReader.Format.CSV)) {
      assertThatThrownBy(reader::next).isInstanceOf(IOException.class)
          .hasMessageStartingWith("line 1: unknown column 'colour' in the header");
    }
  }

  @Test
  void theFormatComesFromTheFileName() {
    assertThat(RowReader.Format.of(Path.of("a.ndjson"))).isEqualTo(RowReader.Format.JSONL);
    assertThat(RowReader.Format.of(Path.of("A.CSV"))).isEqualTo(RowReader.Format.CSV);
    assertThatThrownBy(() -> RowReader.Format.of(Path.of("rows.txt")))
        .hasMessageContaining("give --format jsonl or --format csv");
  }
}
