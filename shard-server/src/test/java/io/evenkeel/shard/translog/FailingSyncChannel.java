package io.evenkeel.shard.translog;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;
import java.util.concurrent.atomic.AtomicBoolean;

/** A file's channel whose fsync fails while {@code failing} is set, as a disk's write-back error would make it. */
final class FailingSyncChannel extends FileChannel {
  private final FileChannel file;
  private final AtomicBoolean failing;

  FailingSyncChannel(FileChannel file, AtomicBoolean failing) {
    this.file = file;
    this.failing = failing;
  }

  @Override
  public void force(boolean metaData) throws IOException {
    if (failing.get()) {
      throw new IOException("Input/output error");
    }
    file.force(metaData);
  }

  @Override
  public int read(ByteBuffer dst) throws IOException {
    return file.read(dst);
  }

  @Override
  public long read(ByteBuffer[] dsts, int offset, int length) throws IOException {
    return file.read(dsts, offset, length);
  }

  @Override
  public int write(ByteBuffer src) throws IOException {
    return file.write(src);
  }

  @Override
  public long write(ByteBuffer[] srcs, int offset, int length) throws IOException {
    return file.write(srcs, offset, length);
  }

  @Override
  public long position() throws IOException {
    return file.position();
  }

  @Override
  public FileChannel position(long newPosition) throws IOException {
    file.position(newPosition);
    return this;
  }

  @Override
  public long size() throws IOException {
    return file.size();
  }

  @Override
  public FileChannel truncate(long size) throws IOException {
    file.truncate(size);
    return this;
  }

  @Override
  public long transferTo(long position, long count, WritableByteChannel target) throws IOException {
    return file.transferTo(position, count, target);
  }

  @Override
  public long transferFrom(ReadableByteChannel src, long position, long count) throws IOException {
    return file.transferFrom(src, position, count);
  }

  @Override
  public int read(ByteBuffer dst, long position) throws IOException {
    return file.read(dst, position);
  }

  @Override
  public int write(ByteBuffer src, long position) throws IOException {
    return file.write(src, position);
  }

  @Override
  public MappedByteBuffer map(MapMode mode, long position, long size) throws IOException {
    return file.map(mode, position, size);
  }

  @Override
  public FileLock lock(long position, long size, boolean shared) throws IOException {
    return file.lock(position, size, shared);
  }

  @Override
  public FileLock tryLock(long position, long size, boolean shared) throws IOException {
    return file.tryLock(position, size, shared);
  }

  @Override
  protected void implCloseChannel() throws IOException {
    file.close();
  }
}
