package io.evenkeel.schemas.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.evenkeel.schemas.ChangeOp;
import io.evenkeel.schemas.ProposalOutcome;
import io.evenkeel.schemas.RoutingRule;
import io.evenkeel.schemas.RuleProposal;
import io.evenkeel.schemas.ShardWriteBatch;
import io.evenkeel.schemas.TransactionLogChange;
import java.io.IOException;
import java.io.InputStream;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.avro.Conversions;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.message.BinaryMessageEncoder;
import org.junit.jupiter.api.Test;

class SingleObjectCodecTest {
  private static final SingleObjectCodec<TransactionLogChange> CHANGES = SingleObjectCodec.of(TransactionLogChange.class);

  static TransactionLogChange change(long row) {
    return TransactionLogChange.newBuilder()
        .setOp(ChangeOp.INSERT)
        .setTenantId(42)
        .setRowId(row)
        .setCreatedTime(1_700_000_000_000L)
        .setModifiedTime(1_700_000_000_500L)
        .setVersion(7)
        .setStatus(1)
        .setSellerNick("shop-42")
        .setTitle("red wool scarf")
        .setPrice(new BigDecimal("19.90"))
        .setQuantity(2)
        .setAttributes("color:red;size:M")
        .build();
  }

  @Test
  void everyRecordTypeRoundTripsWithItsFingerprint() throws Exception {
    TransactionLogChange change = change(1);
    byte[] bytes = CHANGES.encode(change);
    assertThat(bytes[0]).isEqualTo((byte) 0xC3);
    assertThat(bytes[1]).isEqualTo((byte) 0x01);
    assertThat(CHANGES.decode(bytes)).isEqualTo(change);

    RoutingRule rule = new RoutingRule(1_000L, 8, List.of(1L, 2L), false, null);
    SingleObjectCodec<RoutingRule> rules = SingleObjectCodec.of(RoutingRule.class);
    assertThat(rules.decode(rules.encode(rule))).isEqualTo(rule);

    RuleProposal proposal = RuleProposal.newBuilder()
        .setProposalId("p-1").setTenantId(9).setObservedShare(0.31).setProposedOffsetSize(4)
        .setWindowStart(0).setWindowEnd(10_000).setReason("share 0.31 > 0.04 for 2 windows").setProposedAt(10_001)
        .build();
    assertThat(proposal.getOutcome()).isEqualTo(ProposalOutcome.PROPOSED);
    SingleObjectCodec<RuleProposal> proposals = SingleObjectCodec.of(RuleProposal.class);
    assertThat(proposals.decode(proposals.encode(proposal))).isEqualTo(proposal);

    ShardWriteBatch batch = ShardWriteBatch.newBuilder()
        .setShard(3).setSender("ingest-0").setBatchSequence(12).setSentTime(5)
        .setChanges(List.of(change(1), change(2))).build();
    SingleObjectCodec<ShardWriteBatch> batches = SingleObjectCodec.of(ShardWriteBatch.class);
    ShardWriteBatch decoded = batches.decode(batches.encode(batch));
    // Compared element by element: Avro's array equals uses the global model, which has no decimal conversion.
    assertThat(decoded.getChanges()).containsExactlyElementsOf(batch.getChanges());
    assertThat(decoded.getBatchSequence()).isEqualTo(12L);
    assertThat(decoded.getShard()).isEqualTo(3);
  }

  @Test
  void theBytesAreAvrosOwnSingleObjectEncodingBeforeAndAfterAHugeRecord() throws Exception {
    // Records already on Kafka, in translogs and in stored fields were written by Avro's message encoder.
    org.apache.avro.specific.SpecificData model = new org.apache.avro.specific.SpecificData();
    model.addLogicalTypeConversion(new Conversions.DecimalConversion());
    BinaryMessageEncoder<TransactionLogChange> avro = new BinaryMessageEncoder<>(model, TransactionLogChange.getClassSchema());
    TransactionLogChange small = change(3);
    TransactionLogChange huge = change(4);
    huge.setTitle("w".repeat(200_000));
    for (TransactionLogChange change : List.of(small, huge, small)) {
      ByteBuffer expected = avro.encode(change);
      byte[] bytes = CHANGES.encode(change);
      assertThat(ByteBuffer.wrap(bytes)).isEqualTo(expected);
      assertThat(CHANGES.decode(bytes)).isEqualTo(change);
    }
  }

  @Test
  void currentClassReadsRecordsOfAnOlderWriter() throws Exception {
    Schema older = parse("/older/TransactionLogChange-v0.avsc");
    GenericData model = new GenericData();
    model.addLogicalTypeConversion(new Conversions.DecimalConversion());
    GenericData.Record old = new GenericData.Record(older);
    old.put("op", new GenericData.EnumSymbol(older.getField("op").schema(), "UPDATE"));
    old.put("tenant_id", 5L);
    old.put("row_id", 77L);
    old.put("created_time", 100L);
    old.put("modified_time", 200L);
    old.put("version", 3L);
    old.put("title", "old title");
    old.put("price", new BigDecimal("1.50"));
    byte[] oldBytes = toBytes(new BinaryMessageEncoder<>(model, older), old);

    // Without the old schema the fingerprint is unknown: a clear error, not garbage.
    assertThatThrownBy(() -> CHANGES.decode(oldBytes))
        .isInstanceOf(MalformedRecordException.class)
        .hasMessageContaining("TransactionLogChange")
        .hasMessageContaining("MissingSchemaException");

    TransactionLogChange read = SingleObjectCodec.of(TransactionLogChange.class, List.of(older)).decode(oldBytes);
    assertThat(read.getOp()).isEqualTo(ChangeOp.UPDATE);
    assertThat(read.getRowId()).isEqualTo(77L);
    assertThat(read.getTitle()).isEqualTo("old title");
    assertThat(read.getPrice()).isEqualByComparingTo("1.50");
    assertThat(read.getGroupId()).isNull();
    assertThat(read.getAttributes()).isNull();
    assertThat(read.getSetColumns()).isNull();
  }

  @Test
  void aProposalWrittenBeforeCoolDownsExistedReadsAsAWidening() throws Exception {
    // The proposals topic of a running stack holds records of the previous release's schema (SchemaHistory).
    Schema older = parse("/io/evenkeel/schemas/history/RuleProposal-2.avsc");
    GenericData.Record old = new GenericData.Record(older);
    old.put("proposal_id", "p-7");
    old.put("tenant_id", 9L);
    old.put("observed_share", 0.31);
    old.put("proposed_offset_size", 4);
    old.put("window_start", 0L);
    old.put("window_end", 10_000L);
    old.put("reason", "hot");
    old.put("proposed_at", 10_001L);
    old.put("outcome", new GenericData.EnumSymbol(older.getField("outcome").schema(), "COMMITTED"));
    byte[] written = new BinaryMessageEncoder<GenericData.Record>(GenericData.get(), older).encode(old).array();
    RuleProposal read = SingleObjectCodec.of(RuleProposal.class).decode(written);
    assertThat(read.getProposedOffsetSize()).isEqualTo(4);
    assertThat(read.getOutcome()).isEqualTo(ProposalOutcome.COMMITTED);
    assertThat(read.getCoolDown()).isFalse();
  }

  @Test
  void newerReaderWithAnAddedFieldReadsCurrentRecords() throws Exception {
    Schema current = TransactionLogChange.getClassSchema();
    List<Schema.Field> fields = new ArrayList<>();
    for (Schema.Field f : current.getFields()) {
      fields.add(new Schema.Field(f, f.schema()));
    }
    fields.add(new Schema.Field("channel", Schema.create(Schema.Type.STRING), "where the order came from", "web"));
    Schema newer = Schema.createRecord(current.getName(), current.getDoc(), current.getNamespace(), false, fields);

    byte[] bytes = CHANGES.encode(change(9));
    GenericData.Record read = SingleObjectCodec.generic(newer, List.of(current)).decode(bytes);
    assertThat(read.get("row_id")).isEqualTo(9L);
    assertThat(read.get("channel").toString()).isEqualTo("web");
    assertThat(read.get("attributes").toString()).isEqualTo("color:red;size:M");
  }

  @Test
  void malformedBytesGiveAReasonNotACrash() {
    assertThatThrownBy(() -> CHANGES.decode("{\"not\":\"avro\"}".getBytes()))
        .isInstanceOf(MalformedRecordException.class)
        .hasMessageContaining("BadHeaderException");
    byte[] full = CHANGES.encode(change(1));
    byte[] truncated = Arrays.copyOf(full, full.length - 5);
    assertThatThrownBy(() -> CHANGES.decode(truncated))
        .isInstanceOf(MalformedRecordException.class)
        .hasMessageContaining(truncated.length + " bytes");
    assertThatThrownBy(() -> CHANGES.decode(null)).isInstanceOf(MalformedRecordException.class);
  }

  @Test
  void encodingAnIncompleteRecordNamesTheProblemAndLeavesNothingForTheNext() throws Exception {
    TransactionLogChange bad = change(1);
    bad.setOp(null);
    assertThatThrownBy(() -> CHANGES.encode(bad))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("cannot encode TransactionLogChange");
    TransactionLogChange good = change(2);
    assertThat(CHANGES.decode(CHANGES.encode(good))).isEqualTo(good);
    // The price's scale is fixed: this fails after the fields before it were written into the encoder's buffer.
    TransactionLogChange badPrice = change(3);
    badPrice.setPrice(new BigDecimal("1.234"));
    assertThatThrownBy(() -> CHANGES.encode(badPrice)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("scale");
    assertThat(CHANGES.decode(CHANGES.encode(good))).isEqualTo(good);
  }

  private static Schema parse(String resource) throws IOException {
    try (InputStream in = SingleObjectCodecTest.class.getResourceAsStream(resource)) {
      return new Schema.Parser().parse(in);
    }
  }

  private static byte[] toBytes(BinaryMessageEncoder<GenericData.Record> encoder, GenericData.Record record)
      throws IOException {
    ByteBuffer buffer = encoder.encode(record);
    byte[] bytes = new byte[buffer.remaining()];
    buffer.get(bytes);
    return bytes;
  }

  @Test
  void aRecordAnnouncingAHugeStringIsRefusedBeforeAvroAllocatesIt() {
    byte[] valid = CHANGES.encode(change(1));
    // "shop-42": its length 7 (zig-zag varint 14) is followed by the text; announce 2^31 - 9 bytes instead.
    byte[] text = "shop-42".getBytes(java.nio.charset.StandardCharsets.UTF_8);
    int at = indexOf(valid, text) - 1;
    assertThat(valid[at]).isEqualTo((byte) 14);
    long announced = Integer.MAX_VALUE - 8;
    byte[] length = zigZagVarint(announced);
    byte[] hostile = new byte[valid.length - 1 + length.length];
    System.arraycopy(valid, 0, hostile, 0, at);
    System.arraycopy(length, 0, hostile, at, length.length);
    System.arraycopy(valid, at + 1, hostile, at + length.length, valid.length - at - 1);
    assertThatThrownBy(() -> CHANGES.decode(hostile)).isInstanceOf(MalformedRecordException.class)
        .hasMessageContaining("String length " + announced + " exceeds maximum allowed");
  }

  private static int indexOf(byte[] bytes, byte[] part) {
    for (int i = 0; i + part.length <= bytes.length; i++) {
      if (Arrays.equals(bytes, i, i + part.length, part, 0, part.length)) {
        return i;
      }
    }
    throw new AssertionError("not found");
  }

  private static byte[] zigZagVarint(long value) {
    long n = (value << 1) ^ (value >> 63);
    java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
    while ((n & ~0x7FL) != 0) {
      out.write((int) ((n & 0x7F) | 0x80));
      n >>>= 7;
    }
    out.write((int) n);
    return out.toByteArray();
  }
}
