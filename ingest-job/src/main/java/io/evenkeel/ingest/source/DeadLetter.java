package io.evenkeel.ingest.source;

/** A record the job could not use: the original bytes, where they came from, and why. */
public class DeadLetter {
  public String topic;
  public int partition;
  public long offset;
  public byte[] key;
  public byte[] value;
  public String reason;

  public DeadLetter() {}

  public DeadLetter(RawRecord record, String reason) {
    this.topic = record.topic;
    this.partition = record.partition;
    this.offset = record.offset;
    this.key = record.key;
    this.value = record.value;
    this.reason = reason;
  }
}
