package io.evenkeel.shard.translog;

/**
 * One translog record: a payload (a write batch) whose changes got the sequence numbers from {@code firstSeqNo} on.
 */
public record TranslogRecord(long firstSeqNo, byte[] payload, TranslogLocation location) {}
