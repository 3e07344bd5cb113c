package io.evenkeel.shard.index;

import org.apache.lucene.codecs.PostingsFormat;
import org.apache.lucene.codecs.bloom.BloomFilteringPostingsFormat;
import org.apache.lucene.codecs.lucene912.Lucene912Codec;
import org.apache.lucene.codecs.lucene912.Lucene912PostingsFormat;

/**
 * The default codec with a bloom filter on the id field: every write looks its id up in every segment, and most
 * writes are inserts of ids no segment holds, which the filter rejects without touching the terms dictionary.
 * Segments record the per-field format by name, so readers need only lucene-codecs on the classpath.
 */
final class IdBloomFilterCodec extends Lucene912Codec {
  private final PostingsFormat ids = new BloomFilteringPostingsFormat(new Lucene912PostingsFormat());

  @Override
  public PostingsFormat getPostingsFormatForField(String field) {
    return IndexFields.ID.equals(field) ? ids : super.getPostingsFormatForField(field);
  }
}
