package io.evenkeel.query.result;

import java.util.List;

/**
 * Why a query got no (complete) answer, with the HTTP status it maps to: 400 for SQL that is invalid or outside the
 * supported dialect (the message names the construct), 403 when the caller's key may not read what the query names,
 * 429 when the memory the running queries hold leaves none for this one (here or on a shard server), 503 when the
 * service runs as many queries as it may, 504 when shards did not answer in time or at all (the failures name each
 * shard and its reason).
 */
public final class QueryException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final int status;
  private final transient List<ShardFailure> failures;

  private QueryException(int status, String message, List<ShardFailure> failures) {
    super(message);
    this.status = status;
    this.failures = List.copyOf(failures);
  }

  /** 400: the SQL is wrong (syntax, unknown column, wrong types). */
  public static QueryException invalid(String message) {
    return new QueryException(400, message, List.of());
  }

  /** 400: valid SQL outside what the service supports; the message names the construct. */
  public static QueryException unsupported(String construct) {
    return new QueryException(400, construct + " is not supported", List.of());
  }

  /** 403: the caller's key may not read what the query names. */
  public static QueryException forbidden(String message) {
    return new QueryException(403, message, List.of());
  }

  /**
   * 429: the queries running now hold the memory this one needs (in the service or on a shard server); the caller
   * may retry shortly.
   */
  public static QueryException overloaded(String message) {
    return new QueryException(429, message, List.of());
  }

  /** 503: the service is running as many queries as it may at once; the caller may retry shortly. */
  public static QueryException busy(String message) {
    return new QueryException(503, message, List.of());
  }

  /** 504: some shards did not answer within the deadline, or were unreachable. */
  public static QueryException shardsFailed(int total, List<ShardFailure> failures) {
    return new QueryException(504, failures.size() + " of " + total + " shards failed: " + failures, failures);
  }

  public int status() {
    return status;
  }

  public List<ShardFailure> failures() {
    return failures;
  }
}
