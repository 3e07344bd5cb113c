package io.evenkeel.query.parse;

import java.util.List;

/** A parsed statement: one {@link SelectStatement}, or a {@link UnionStatement} of them. */
public sealed interface Statement permits SelectStatement, UnionStatement {
  /** {@code EXPLAIN ...}: answer with the plan instead of rows. */
  boolean explain();

  /** The names of the output columns, in order. */
  List<String> labels();
}
