package io.evenkeel.shard.index;

import java.io.IOException;
import org.apache.lucene.codecs.FilterCodec;
import org.apache.lucene.codecs.StoredFieldsFormat;
import org.apache.lucene.codecs.StoredFieldsReader;
import org.apache.lucene.codecs.StoredFieldsWriter;
import org.apache.lucene.codecs.lucene90.Lucene90StoredFieldsFormat;
import org.apache.lucene.codecs.lucene90.compressing.Lucene90CompressingStoredFieldsFormat;
import org.apache.lucene.index.FieldInfos;
import org.apache.lucene.index.SegmentInfo;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.IOContext;

/**
 * The shards' codec: {@link IdBloomFilterCodec}, with stored rows compressed in blocks of 16 kB instead of 80 kB.
 * Lucene decompresses a block's dictionary and the sub-block holding a row to read that row: ~2.4 kB instead of
 * ~12 kB, for every row a fetch returns. The files stay Lucene's fast stored-fields format, whose reader takes the
 * block layout from the file, so the default codec reads them (tested).
 */
final class ShardCodec extends FilterCodec {
  private static final int STORED_BLOCK_BYTES = 16 * 1024;
  private final StoredFieldsFormat standard = new Lucene90StoredFieldsFormat(Lucene90StoredFieldsFormat.Mode.BEST_SPEED);
  private final StoredFieldsFormat smallBlocks = new Lucene90CompressingStoredFieldsFormat(
      "Lucene90StoredFieldsFastData", Lucene90StoredFieldsFormat.BEST_SPEED_MODE, STORED_BLOCK_BYTES, 1024, 10);

  ShardCodec() {
    super("Lucene912", new IdBloomFilterCodec());
  }

  @Override
  public StoredFieldsFormat storedFieldsFormat() {
    return new StoredFieldsFormat() {
      @Override
      public StoredFieldsReader fieldsReader(Directory directory, SegmentInfo segment, FieldInfos fields,
          IOContext context) throws IOException {
        return standard.fieldsReader(directory, segment, fields, context);
      }

      @Override
      public StoredFieldsWriter fieldsWriter(Directory directory, SegmentInfo segment, IOContext context)
          throws IOException {
        segment.putAttribute(Lucene90StoredFieldsFormat.MODE_KEY, Lucene90StoredFieldsFormat.Mode.BEST_SPEED.name());
        return smallBlocks.fieldsWriter(directory, segment, context);
      }
    };
  }
}
