package io.evenkeel.query.http;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Request;

/**
 * Reads a request body of at most a given size without holding a thread while the client sends it: what has come is
 * taken, then the rest is awaited with {@link Request#demand}. A client that trickles its body costs a connection
 * (bounded by the connector), never one of the threads that answer the others; and one that sends slower than
 * {@link #MIN_BYTES_PER_SECOND} after the first {@link #GRACE_NANOS} is answered 408 and cut off at its next bytes
 * (each of which would reset the idle timeout), or by the idle timeout if it sends none. The continuation runs on a
 * thread that may block.
 */
final class BodyReader {
  static final long MIN_BYTES_PER_SECOND = 1_024;
  static final long GRACE_NANOS = TimeUnit.SECONDS.toNanos(5);
  /**
   * How much of a body over the limit is read and dropped before the 413 is written: a client still sending when its
   * connection closed could lose the answer to a reset, so what it sends up to this is taken (and dropped), and it
   * reads a clean 413; past this the connection is closed with the answer.
   */
  static final long MAX_DISCARDED_BYTES = 16L << 20;

  /** What happens once the body is read, or could not be. */
  interface Continuation {
    void body(byte[] bytes);

    /** The body is over {@code maxBytes}. */
    void tooLarge(int maxBytes);

    /** The body came slower than the minimum rate. */
    void tooSlow(long bytesPerSecond);

    void failed(Throwable failure);
  }

  private final Request request;
  private final int maxBytes;
  private final Continuation continuation;
  private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
  private final long started = System.nanoTime();
  /** The bytes read past the limit (dropped), once the body is over it. */
  private long discarded = -1;

  private BodyReader(Request request, int maxBytes, Continuation continuation) {
    this.request = request;
    this.maxBytes = maxBytes;
    this.continuation = continuation;
  }

  /** Starts reading {@code request}'s body; {@code continuation} is called once, when it ends. */
  static void read(Request request, int maxBytes, Continuation continuation) {
    new BodyReader(request, maxBytes, continuation).readAvailable();
  }

  private void readAvailable() {
    while (true) {
      Content.Chunk chunk = request.read();
      if (chunk == null) {
        // A plain Runnable is a blocking task to Jetty: it runs on a pool thread, where the continuation may block.
        request.demand(this::readAvailable);
        return;
      }
      if (Content.Chunk.isFailure(chunk)) {
        continuation.failed(chunk.getFailure());
        return;
      }
      ByteBuffer buffer = chunk.getByteBuffer();
      if (discarded < 0 && bytes.size() + buffer.remaining() > maxBytes) {
        discarded = 0;
      }
      boolean over = discarded >= 0;
      if (over) {
        discarded += buffer.remaining();
      } else {
        byte[] part = new byte[buffer.remaining()];
        buffer.get(part);
        bytes.write(part, 0, part.length);
      }
      boolean last = chunk.isLast();
      chunk.release();
      if (over && (last || discarded > MAX_DISCARDED_BYTES)) {
        continuation.tooLarge(maxBytes);
        return;
      }
      if (last) {
        continuation.body(bytes.toByteArray());
        return;
      }
      long elapsed = System.nanoTime() - started;
      long received = bytes.size() + Math.max(0, discarded);
      if (elapsed > GRACE_NANOS && received < MIN_BYTES_PER_SECOND * elapsed / 1_000_000_000L) {
        continuation.tooSlow(received * 1_000_000_000L / elapsed);
        return;
      }
    }
  }
}
