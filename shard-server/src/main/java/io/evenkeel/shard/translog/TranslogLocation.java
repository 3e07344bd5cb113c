package io.evenkeel.shard.translog;

/** Where a record starts: its generation (file) and byte offset in it. */
public record TranslogLocation(long generation, long offset) {}
