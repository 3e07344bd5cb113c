package io.evenkeel.query.http;

import io.evenkeel.query.parse.AttributeFrequency;
import io.evenkeel.query.result.QueryResult;
import java.util.List;

/**
 * What the HTTP API answers from. The query service implements it, so the service depends on its API and the API not
 * back on the service.
 */
public interface SqlService {
  /**
   * Runs one statement. With {@code allowPartial}, shards that fail are reported in the result instead of failing
   * the query with a 504.
   */
  QueryResult execute(String sql, List<Object> params, boolean allowPartial);

  /** Attribute keys by how often queries filtered or read them: the input for choosing hot keys. */
  AttributeFrequency attributeFrequency();
}
