package io.evenkeel.query.parse;

import io.evenkeel.expr.Expr;

/** One output column: its expression and its name (the alias, the column name, or the expression as written). */
public record SelectItem(Expr expr, String label) {}
