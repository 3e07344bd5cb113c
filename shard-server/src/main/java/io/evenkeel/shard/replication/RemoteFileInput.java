package io.evenkeel.shard.replication;

import io.evenkeel.schemas.shard.ReadFileRequest;
import io.evenkeel.schemas.shard.ReplicationServiceGrpc.ReplicationServiceBlockingStub;
import io.grpc.StatusRuntimeException;
import java.io.EOFException;
import java.io.IOException;
import java.util.concurrent.TimeUnit;
import org.apache.lucene.replicator.nrt.NodeCommunicationException;
import org.apache.lucene.store.DataInput;

/**
 * One index file on the primary, read in order from {@code offset} in chunks of {@link #CHUNK_BYTES}: each chunk is one
 * call, so a copy needs no stream state on the primary and a lost chunk costs one retry of the whole job.
 */
final class RemoteFileInput extends DataInput {
  static final int CHUNK_BYTES = 1 << 20;
  private static final long CALL_TIMEOUT_SECONDS = 30;

  private final ReplicationServiceBlockingStub primary;
  private final int shard;
  private final String file;
  private final long session;
  private final long length;
  private long offset;
  private byte[] chunk = new byte[0];
  private int position;

  RemoteFileInput(ReplicationServiceBlockingStub primary, int shard, String file, long session, long offset,
      long length) {
    this.primary = primary;
    this.shard = shard;
    this.file = file;
    this.session = session;
    this.offset = offset;
    this.length = length;
  }

  @Override
  public byte readByte() throws IOException {
    if (position == chunk.length) {
      fill();
    }
    return chunk[position++];
  }

  @Override
  public void readBytes(byte[] bytes, int off, int len) throws IOException {
    while (len > 0) {
      if (position == chunk.length) {
        fill();
      }
      int n = Math.min(len, chunk.length - position);
      System.arraycopy(chunk, position, bytes, off, n);
      position += n;
      off += n;
      len -= n;
    }
  }

  @Override
  public void skipBytes(long numBytes) throws IOException {
    long inChunk = Math.min(numBytes, chunk.length - position);
    position += (int) inChunk;
    offset += numBytes - inChunk;
  }

  private void fill() throws IOException {
    if (offset >= length) {
      throw new EOFException("read past the end of " + file + " (" + length + " bytes) on the primary of shard "
          + shard);
    }
    int want = (int) Math.min(CHUNK_BYTES, length - offset);
    try {
      chunk = primary.withDeadlineAfter(CALL_TIMEOUT_SECONDS, TimeUnit.SECONDS).readFile(ReadFileRequest.newBuilder()
              .setShard(shard).setFile(file).setOffset(offset).setLength(want).setSession(session).build())
          .getData().toByteArray();
    } catch (StatusRuntimeException e) {
      throw new NodeCommunicationException("reading " + file + " at " + offset + " from the primary of shard " + shard
          + " failed: " + e.getStatus(), e);
    }
    if (chunk.length == 0) {
      throw new EOFException("the primary of shard " + shard + " answered no bytes of " + file + " at " + offset);
    }
    offset += chunk.length;
    position = 0;
  }
}
