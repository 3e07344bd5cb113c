package io.evenkeel.query.cursor;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import io.evenkeel.expr.SqlValues;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import io.evenkeel.expr.SessionTimeZone;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

/**
 * Where the next page of a paged query starts: the statement as the client sent it, and the position of the last row
 * answered in the query's total order (its ORDER BY keys, then {@code tenant_id}, {@code row_id}). The next page is
 * the statement with the rows after that position only, from OFFSET 0: each page is a top-n search that starts where
 * the last one ended (Elasticsearch's {@code search_after}), so the thousandth page costs what the first did.
 *
 * <p>The token is the statement and position in JSON, base64url-encoded. It grants nothing: it runs as the statement
 * would, under the caller's own key.
 *
 * @param timeZone the session time zone of the statement's pages
 * @param after the ORDER BY keys' values, then tenant_id and row_id (Long, BigDecimal, String or null)
 */
public record Cursor(String sql, List<Object> params, ZoneId timeZone, List<Object> after) {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  public Cursor {
    params = java.util.Collections.unmodifiableList(new ArrayList<>(params));
    after = java.util.Collections.unmodifiableList(new ArrayList<>(after));
  }

  /** The token a client sends back as {@code "cursor"}. */
  public String encode() {
    ObjectNode node = NODES.objectNode();
    node.put("sql", sql);
    node.set("params", values(params));
    node.put("time_zone", timeZone.getId());
    node.set("after", values(after));
    return Base64.getUrlEncoder().withoutPadding().encodeToString(node.toString().getBytes(StandardCharsets.UTF_8));
  }

  /** The cursor a token names; IllegalArgumentException saying what is wrong with one that is not a cursor. */
  public static Cursor decode(String token) {
    JsonNode node;
    try {
      node = JSON.readTree(Base64.getUrlDecoder().decode(token));
    } catch (IllegalArgumentException | IOException e) {
      throw new IllegalArgumentException("\"cursor\" is not a cursor this service gave: " + e.getMessage());
    }
    if (node == null || !node.path("sql").isTextual() || !node.path("params").isArray()
        || !node.path("after").isArray()) {
      throw new IllegalArgumentException("\"cursor\" is not a cursor this service gave: it lacks sql, params or "
          + "after");
    }
    ZoneId timeZone;
    try {
      timeZone = SessionTimeZone.parse(node.path("time_zone").asText("+00:00"));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("\"cursor\" holds no time zone: " + e.getMessage());
    }
    return new Cursor(node.get("sql").asText(), values(node.get("params")), timeZone, values(node.get("after")));
  }

  /** Values as JSON: decimals as {@code {"d": "12.50"}}, so that neither their scale nor their digits change. */
  private static ArrayNode values(List<Object> values) {
    ArrayNode array = NODES.arrayNode();
    for (Object value : values) {
      if (value == null) {
        array.addNull();
      } else if (value instanceof Long number) {
        array.add(number);
      } else if (value instanceof BigDecimal decimal) {
        // A quotient as it is compared: the digits it shows.
        array.addObject().put("d", SqlValues.shown(decimal).toString());
      } else if (value instanceof String text) {
        array.add(text);
      } else if (value instanceof Boolean truth) {
        array.add(truth);
      } else {
        throw new IllegalArgumentException("a cursor cannot hold " + value.getClass().getSimpleName() + " " + value);
      }
    }
    return array;
  }

  private static List<Object> values(JsonNode array) {
    List<Object> values = new ArrayList<>(array.size());
    for (JsonNode value : array) {
      if (value.isNull()) {
        values.add(null);
      } else if (value.isIntegralNumber() && value.canConvertToLong()) {
        values.add(value.longValue());
      } else if (value.isObject() && value.path("d").isTextual()) {
        try {
          values.add(new BigDecimal(value.get("d").asText()));
        } catch (NumberFormatException e) {
          throw new IllegalArgumentException("\"cursor\" holds a decimal that is not one: " + value);
        }
      } else if (value.isTextual()) {
        values.add(value.asText());
      } else if (value.isBoolean()) {
        values.add(value.asBoolean());
      } else {
        throw new IllegalArgumentException("\"cursor\" holds a value of no SQL type: " + value);
      }
    }
    return values;
  }
}
