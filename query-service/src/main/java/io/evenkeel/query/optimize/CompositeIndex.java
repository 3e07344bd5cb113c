package io.evenkeel.query.optimize;

import java.util.List;

/** A composite index of the shards: several long columns indexed together, in order, as one point. */
public record CompositeIndex(String name, List<String> columns) {
  /** The shards' (tenant_id, created_time) index. */
  public static final CompositeIndex TENANT_CREATED =
      new CompositeIndex("tenant_created", List.of("tenant_id", "created_time"));

  public CompositeIndex {
    columns = List.copyOf(columns);
    if (columns.size() < 2) {
      throw new IllegalArgumentException("a composite index has at least two columns; got: " + columns);
    }
  }
}
