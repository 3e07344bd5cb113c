package io.evenkeel.shard.replication;

import java.io.Closeable;
import java.util.PriorityQueue;
import org.apache.lucene.store.AlreadyClosedException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A replica's copy thread: runs its copy jobs one chunk at a time, always the most urgent job first (an NRT point
 * before a merged segment), and tells each job's owner when it ends, copied or failed.
 */
final class CopyJobRunner implements Closeable {
  private static final Logger LOG = LoggerFactory.getLogger(CopyJobRunner.class);

  private final PriorityQueue<GrpcCopyJob> queue = new PriorityQueue<>();
  private final Thread thread;
  private boolean closed;

  CopyJobRunner(String name) {
    thread = new Thread(this::run, name);
    thread.setDaemon(true);
    thread.start();
  }

  synchronized void launch(GrpcCopyJob job) {
    if (closed) {
      throw new AlreadyClosedException("the copy runner is closed");
    }
    queue.offer(job);
    notifyAll();
  }

  private synchronized GrpcCopyJob next() throws InterruptedException {
    while (!closed && queue.isEmpty()) {
      wait();
    }
    return closed ? null : queue.poll();
  }

  private void run() {
    try {
      GrpcCopyJob job;
      while ((job = next()) != null) {
        boolean done;
        try {
          done = job.visit();
        } catch (Throwable t) {
          cancel(job, "copy failed: " + t, t);
          continue;
        }
        if (done) {
          whenDone(job);
        } else {
          synchronized (this) {
            queue.offer(job);
          }
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    GrpcCopyJob left;
    while ((left = poll()) != null) {
      cancel(left, "the replica is closing", null);
    }
  }

  private synchronized GrpcCopyJob poll() {
    return queue.poll();
  }

  private static void cancel(GrpcCopyJob job, String reason, Throwable cause) {
    if (cause != null) {
      LOG.warn("{}: {}", job, reason);
    }
    try {
      job.cancel(reason, cause);
    } catch (Throwable t) {
      LOG.warn("cancelling {} failed", job, t);
    }
    whenDone(job);
  }

  private static void whenDone(GrpcCopyJob job) {
    if (job.onceDone == null) {
      return;
    }
    try {
      job.onceDone.run(job);
    } catch (Throwable t) {
      LOG.warn("finishing {} failed", job, t);
    }
  }

  @Override
  public void close() {
    synchronized (this) {
      closed = true;
      notifyAll();
    }
    try {
      thread.join(10_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
