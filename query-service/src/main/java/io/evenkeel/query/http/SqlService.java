package io.evenkeel.query.http;

import io.evenkeel.query.auth.Access;
import io.evenkeel.query.parse.AttributeFrequency;
import io.evenkeel.query.result.QueryResult;
import java.time.ZoneId;
import java.util.List;
import java.util.Set;

/**
 * What the HTTP API answers from. The query service implements it, so the service depends on its API and the API not
 * back on the service.
 */
public interface SqlService {
  /**
   * Runs one statement as {@code access} allows (a tenant key's statement only ever reads its tenants' rows). With
   * {@code allowPartial}, shards that fail are reported in the result instead of failing
   * the query with a 504. {@code timeZone} is the session time zone date functions work in.
   */
  QueryResult execute(String sql, List<Object> params, ZoneId timeZone, boolean allowPartial, Access access);

  /**
   * The next page of a paged query: {@code cursor} is the token a page answered with ({@link QueryResult#cursor()});
   * the page runs as its statement would, under {@code access}. A 400 for a token that is not a cursor.
   */
  QueryResult next(String cursor, boolean allowPartial, Access access);

  /**
   * Holds what {@code result}'s answer takes in memory against the service's budget while it is written to a client
   * (who may read slowly); closing the hold gives it back. Throws a 429 {@code QueryException} when the queries and
   * answers held now leave no room for it.
   */
  AutoCloseable holdAnswer(QueryResult result);

  /**
   * Makes every write the shard servers acknowledged before the call searchable, on every shard; returns how many
   * shards it covered. Throws a 504 {@code QueryException} naming the shards that did not answer.
   */
  int refresh();

  /** Attribute keys by how often queries filtered or read them: the input for choosing hot keys. */
  AttributeFrequency attributeFrequency();

  /** The attribute keys whose filters go to the shards' index now (the others are scanned here). */
  Set<String> hotAttributes();
}
