package io.evenkeel.ingest.settings;

import java.io.Serializable;

/**
 * How the job writes: the window in which a row's changes fold into one (0: none), and the shard sink's batches
 * (changes, bytes, linger), hot lanes (with the surge that takes a tenant there before the monitor shows it hot),
 * in-memory bounds of each lane, spill to disk ({@code spillDir} null: a new temporary directory; {@code spillBytes}
 * 0: never) and the deadline of a write request.
 */
public record SinkSettings(long batchWindowMs, int batchSize, long batchBytes, long lingerMs, boolean lanes,
    long surgeChanges, int hotBuffer, int laneBuffer, long laneBufferBytes, long spillAfterMs, long spillBytes,
    String spillDir, long requestTimeoutMs) implements Serializable {}
