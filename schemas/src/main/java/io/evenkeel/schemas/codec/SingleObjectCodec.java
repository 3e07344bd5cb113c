package io.evenkeel.schemas.codec;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.avro.AvroRuntimeException;
import org.apache.avro.Conversions;
import org.apache.avro.Schema;
import org.apache.avro.SchemaNormalization;
import org.apache.avro.generic.GenericData;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.DatumReader;
import org.apache.avro.io.DatumWriter;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.message.BinaryMessageDecoder;
import org.apache.avro.specific.SpecificData;
import org.apache.avro.specific.SpecificRecord;

/**
 * Avro single-object encoding (magic {@code C3 01}, the writer schema's 8-byte CRC-64-AVRO fingerprint, then the
 * binary body): Kafka records and gRPC payloads identify their schema without a registry.
 *
 * <p>Decoding resolves the writer schema from the fingerprint: the reader's own schema, the bundled {@link
 * SchemaHistory}, and any extra schemas given; records of an older writer are read with Avro's schema resolution
 * (added fields take their defaults).
 *
 * <p>Records of the codec's own schema, nearly all of them, are read and written over byte arrays with per-thread
 * buffers: Avro's message encoder and decoder go through streams a byte at a time, which was a quarter of the ingest
 * job's profile samples and a sixth of a shard server's writes.
 *
 * <p>NOTE: instances are thread-safe; the per-thread buffers are reused.
 *
 * @param <T> a generated record class, or {@link GenericData.Record} for a generic reader
 */
public final class SingleObjectCodec<T> {
  static {
    // Resolving an older writer schema loads our classes by name.
    AvroTrust.install();
  }

  /**
   * One model with every logical-type conversion our schemas use: a generated class registers only the conversions of
   * its own fields, so {@code ShardWriteBatch}'s model would not know the decimal price of its nested changes.
   */
  private static final SpecificData SPECIFIC = withConversions(new SpecificData());

  private static final GenericData GENERIC = withConversions(new GenericData());

  /** A thread's encoding buffer is dropped after a record larger than this, so a rare huge row is not kept. */
  private static final int KEPT_BUFFER_BYTES = 64 * 1024;
  private static final ThreadLocal<Encoding> ENCODINGS = ThreadLocal.withInitial(Encoding::new);
  private static final ThreadLocal<BinaryDecoder> DECODERS = new ThreadLocal<>();

  private final Schema schema;
  private final byte[] header;
  private final DatumWriter<T> writer;
  private final DatumReader<T> reader;
  /** Reads records of another writer schema, found by their fingerprint. */
  private final BinaryMessageDecoder<T> decoder;

  private SingleObjectCodec(GenericData model, Schema schema, List<Schema> olderWriters) {
    this.schema = schema;
    // The single-object header: C3 01, then the CRC-64-AVRO fingerprint, little-endian.
    this.header = ByteBuffer.allocate(10).order(ByteOrder.LITTLE_ENDIAN).put((byte) 0xC3).put((byte) 0x01)
        .putLong(SchemaNormalization.parsingFingerprint64(schema)).array();
    @SuppressWarnings("unchecked")
    DatumWriter<T> writer = (DatumWriter<T>) model.createDatumWriter(schema);
    this.writer = writer;
    @SuppressWarnings("unchecked")
    DatumReader<T> reader = (DatumReader<T>) model.createDatumReader(schema, schema);
    this.reader = reader;
    List<Schema> known = new ArrayList<>(SchemaHistory.bundled());
    known.addAll(olderWriters);
    this.decoder = new BinaryMessageDecoder<>(model, schema, SchemaHistory.storeOf(known));
    known.forEach(decoder::addSchema);
  }

  /** A codec for a generated record class, e.g. {@code SingleObjectCodec.of(TransactionLogChange.class)}. */
  public static <T extends SpecificRecord> SingleObjectCodec<T> of(Class<T> type) {
    return of(type, List.of());
  }

  /** A codec for a generated record class that can also read records written with {@code olderWriters}. */
  public static <T extends SpecificRecord> SingleObjectCodec<T> of(Class<T> type, List<Schema> olderWriters) {
    return new SingleObjectCodec<>(SPECIFIC, SPECIFIC.getSchema(type), olderWriters);
  }

  /** A generic codec whose reader schema is {@code readerSchema}. */
  public static SingleObjectCodec<GenericData.Record> generic(Schema readerSchema, List<Schema> olderWriters) {
    return new SingleObjectCodec<>(GENERIC, readerSchema, olderWriters);
  }

  private static <M extends GenericData> M withConversions(M model) {
    model.addLogicalTypeConversion(new Conversions.DecimalConversion());
    return model;
  }

  public Schema schema() {
    return schema;
  }

  /**
   * The length of the header ({@code C3 01} and the schema's fingerprint) when {@code bytes} were written with this
   * codec's own schema, else 0: after it comes the record's plain Avro binary body, which can be copied as it is into
   * a record that nests this one.
   */
  public int ownHeaderLength(byte[] bytes) {
    return bytes != null && Arrays.equals(bytes, 0, Math.min(bytes.length, header.length), header, 0, header.length)
        ? header.length : 0;
  }

  public byte[] encode(T record) {
    Encoding encoding = ENCODINGS.get();
    boolean written = false;
    try {
      encoding.bytes.write(header);
      writer.write(record, encoding.encoder);
      encoding.encoder.flush();
      written = true;
      return encoding.bytes.toByteArray();
    } catch (IOException | AvroRuntimeException | ClassCastException | NullPointerException e) {
      // The generated builders check required fields; a record built by hand can still be invalid.
      throw new IllegalArgumentException("cannot encode " + schema.getName() + ": " + e.getMessage(), e);
    } finally {
      if (written && encoding.bytes.size() <= KEPT_BUFFER_BYTES) {
        encoding.bytes.reset();
      } else {
        // A failed write leaves part of its record in the encoder's buffer, which would be flushed into the next one.
        ENCODINGS.remove();
      }
    }
  }

  public T decode(byte[] bytes) throws MalformedRecordException {
    if (bytes == null) {
      throw new MalformedRecordException("no bytes (null record value) where a " + schema.getName() + " was expected", null);
    }
    try {
      int bodyStart = ownHeaderLength(bytes);
      if (bodyStart == 0) {
        return decoder.decode(bytes);
      }
      BinaryDecoder body = DecoderFactory.get().binaryDecoder(bytes, bodyStart, bytes.length - bodyStart,
          DECODERS.get());
      DECODERS.set(body);
      return reader.read(null, body);
    } catch (IOException | RuntimeException e) {
      throw new MalformedRecordException(
          "not a single-object " + schema.getName() + " (" + bytes.length + " bytes): " + describe(e), e);
    }
  }

  /**
   * A thread's buffer and the encoder that writes into it, reused from record to record: a flush leaves the encoder
   * empty, so the header can go straight into the buffer before the next record's body.
   */
  private static final class Encoding {
    final ByteArrayOutputStream bytes = new ByteArrayOutputStream(1024);
    final BinaryEncoder encoder = EncoderFactory.get().binaryEncoder(bytes, null);
  }

  private static String describe(Exception e) {
    String message = e.getMessage();
    return e.getClass().getSimpleName() + (message == null ? "" : ": " + message);
  }
}
