package io.evenkeel.cluster.memory;

import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * The memory a process lets its requests hold, accounted where they build it (as Elasticsearch's circuit breakers
 * do): a request reserves what it builds (groups, distinct values, rows, the answer) against its own limit and
 * against the process's; over either, it ends with {@link Exceeded}, and closing its {@link Reservation} gives back
 * all it held. The sizes are estimates of the heap the structures take, not exact counts. Thread-safe.
 */
public final class MemoryBudget {
  private final long processLimit;
  private final long requestLimit;
  private final String processSetting;
  private final String requestSetting;
  private final AtomicLong used = new AtomicLong();

  /**
   * @param processLimit the bytes all requests together may hold
   * @param requestLimit the bytes one request may hold (at most {@code processLimit})
   * @param processSetting how an operator sets the process limit (a flag), for the messages
   * @param requestSetting how an operator sets the request limit
   */
  public MemoryBudget(long processLimit, long requestLimit, String processSetting, String requestSetting) {
    if (processLimit < 1 || requestLimit < 1 || requestLimit > processLimit) {
      throw new IllegalArgumentException(requestSetting + " must be at least 1 byte and at most " + processSetting
          + " (" + ByteSize.format(processLimit) + "); got: " + ByteSize.format(requestLimit));
    }
    this.processLimit = processLimit;
    this.requestLimit = requestLimit;
    this.processSetting = processSetting;
    this.requestSetting = requestSetting;
  }

  /** A budget without limits: for callers that bound their requests otherwise. */
  public static MemoryBudget unlimited() {
    return new MemoryBudget(Long.MAX_VALUE, Long.MAX_VALUE, "no limit", "no limit");
  }

  /** The share of the heap all requests together may hold by default; the rest is the index's and the writes'. */
  public static final double DEFAULT_HEAP_FRACTION = 0.4;
  /** What one request may hold by default (less when the process's share is smaller). */
  public static final long DEFAULT_REQUEST_LIMIT = 64L << 20;

  /** The default: {@link #DEFAULT_HEAP_FRACTION} of this JVM's heap, {@link #DEFAULT_REQUEST_LIMIT} a request. */
  public static MemoryBudget ofHeap(String processSetting, String requestSetting) {
    long process = (long) (Runtime.getRuntime().maxMemory() * DEFAULT_HEAP_FRACTION);
    return new MemoryBudget(process, Math.min(DEFAULT_REQUEST_LIMIT, process), processSetting, requestSetting);
  }

  /**
   * The budget the flags give: each null flag takes its default ({@link #ofHeap}); a request limit over the
   * process's is lowered to it.
   */
  public static MemoryBudget of(Long processLimit, Long requestLimit, String processSetting, String requestSetting) {
    MemoryBudget defaults = ofHeap(processSetting, requestSetting);
    long process = processLimit == null ? defaults.processLimit : processLimit;
    long request = Math.min(requestLimit == null ? DEFAULT_REQUEST_LIMIT : requestLimit, process);
    return new MemoryBudget(process, request, processSetting, requestSetting);
  }

  /** A new request's account, empty. Close it when the request ends. */
  public Reservation open() {
    return new Reservation();
  }

  /** The bytes all open requests hold now. */
  public long used() {
    return used.get();
  }

  public long processLimit() {
    return processLimit;
  }

  public long requestLimit() {
    return requestLimit;
  }

  /** One request's part of the budget. Thread-safe; {@link #close()} is idempotent. */
  public final class Reservation implements AutoCloseable {
    private final AtomicLong held = new AtomicLong();
    private volatile boolean closed;
    /** The first refusal: every later reservation of the request fails with it (its other parts stop too). */
    private volatile Exceeded refused;

    private Reservation() {}

    /** What one request may hold (its budget's {@link MemoryBudget#requestLimit()}). */
    public long requestLimit() {
      return requestLimit;
    }

    /**
     * Takes {@code bytes} more for {@code what} (words that finish "the request needs more memory for ...", such as
     * "100,001 groups"), or throws {@link Exceeded} and takes nothing.
     */
    public void reserve(long bytes, String what) {
      reserve(bytes, () -> what);
    }

    /** As {@link #reserve(long, String)}, with the words made only for a refusal (reservations are frequent). */
    public void reserve(long bytes, Supplier<String> what) {
      if (bytes <= 0) {
        return;
      }
      if (closed) {
        throw new IllegalStateException("the reservation is closed");
      }
      checkNotRefused();
      long mine = held.addAndGet(bytes);
      if (mine > requestLimit) {
        held.addAndGet(-bytes);
        throw refuse(new Exceeded(true, requestLimit, "the request needs more than the "
            + ByteSize.format(requestLimit) + " one request may hold (" + requestSetting + ") for " + what.get()));
      }
      long all = used.addAndGet(bytes);
      if (all > processLimit) {
        held.addAndGet(-bytes);
        used.addAndGet(-bytes);
        throw refuse(new Exceeded(false, processLimit, "the requests running now hold "
            + ByteSize.format(all - bytes) + " of the " + ByteSize.format(processLimit) + " they may hold together ("
            + processSetting + "); this one needs " + ByteSize.format(bytes) + " more for " + what.get()));
      }
    }

    /**
     * Throws the request's refusal, if another of its parts met one: work already paid for (by an estimate) stops
     * there too.
     */
    public void checkNotRefused() {
      if (refused != null) {
        throw refused;
      }
    }

    /** Whether a part of the request met a refusal. */
    public boolean isRefused() {
      return refused != null;
    }

    private Exceeded refuse(Exceeded exceeded) {
      refused = exceeded;
      return exceeded;
    }

    /** The bytes this request holds. */
    public long held() {
      return held.get();
    }

    @Override
    public void close() {
      if (!closed) {
        closed = true;
        used.addAndGet(-held.getAndSet(0));
      }
    }
  }

  /**
   * A reservation over a limit. {@link #perRequest()}: the request alone is too large (no retry helps: it must ask
   * for less); otherwise the process is busy with other requests (a retry later may pass).
   */
  public static final class Exceeded extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final boolean perRequest;
    private final long limit;

    Exceeded(boolean perRequest, long limit, String message) {
      super(message, null, false, false);
      this.perRequest = perRequest;
      this.limit = limit;
    }

    public boolean perRequest() {
      return perRequest;
    }

    public long limit() {
      return limit;
    }
  }
}
