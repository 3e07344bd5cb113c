package io.evenkeel.query.http;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Request;

/**
 * Reads a request body of at most a given size without holding a thread while the client sends it: what has come is
 * taken, then the rest is awaited with {@link Request#demand}. A client that trickles its body costs a connection
 * (bounded by the connector, cut by the minimum data rate and the idle timeout), never one of the threads that answer
 * the others. The continuation runs on a thread that may block.
 */
final class BodyReader {
  /** What happens once the body is read, or could not be. */
  interface Continuation {
    void body(byte[] bytes);

    /** The body is over {@code maxBytes}. */
    void tooLarge(int maxBytes);

    void failed(Throwable failure);
  }

  private final Request request;
  private final int maxBytes;
  private final Continuation continuation;
  private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();

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
      boolean over = bytes.size() + buffer.remaining() > maxBytes;
      if (!over) {
        byte[] part = new byte[buffer.remaining()];
        buffer.get(part);
        bytes.write(part, 0, part.length);
      }
      boolean last = chunk.isLast();
      chunk.release();
      if (over) {
        continuation.tooLarge(maxBytes);
        return;
      }
      if (last) {
        continuation.body(bytes.toByteArray());
        return;
      }
    }
  }
}
