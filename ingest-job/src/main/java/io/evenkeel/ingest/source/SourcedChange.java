package io.evenkeel.ingest.source;

import io.evenkeel.schemas.TransactionLogChange;

/** A decoded change, its bytes as they arrived, and where it was read: its Kafka topic, partition and offset. */
public class SourcedChange {
  public TransactionLogChange change;
  public byte[] encoded;
  public String topic;
  public int partition;
  public long offset;

  public SourcedChange() {}

  public SourcedChange(TransactionLogChange change, byte[] encoded, String topic, int partition, long offset) {
    this.change = change;
    this.encoded = encoded;
    this.topic = topic;
    this.partition = partition;
    this.offset = offset;
  }
}
