package io.evenkeel.schemas.codec;

/**
 * Bytes that are not a decodable single-object Avro record; the message says why (wrong magic, unknown schema
 * fingerprint, truncated body), so a dead-letter queue can keep it beside the original bytes.
 */
public final class MalformedRecordException extends Exception {
  public MalformedRecordException(String message, Throwable cause) {
    super(message, cause);
  }
}
