package io.evenkeel.query.auth;

import io.evenkeel.expr.Expr;
import io.evenkeel.expr.Op;
import io.evenkeel.query.parse.SelectStatement;
import io.evenkeel.query.result.QueryException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * What a tenant key's statement becomes: its WHERE clause ANDed with {@code tenant_id IN (the key's tenants)}, in the
 * parsed statement, before normalization, planning and routing. However the rest of the clause is written ({@code OR
 * tenant_id = ...}, NOT, comments, parameters), the conjunction cannot match another tenant's row. A statement that
 * names tenants the key may not read is refused (403) rather than answered with nothing.
 */
public final class TenantRestriction {
  private TenantRestriction() {}

  /**
   * The statement {@code access} may run. {@code namedTenants}: the tenants the statement's own WHERE clause confines
   * it to (every row it can match belongs to one of them), or null when it names none.
   */
  public static SelectStatement apply(SelectStatement statement, Set<Long> namedTenants, Access access) {
    if (access.isAdmin()) {
      return statement;
    }
    if (namedTenants != null && !access.tenants().containsAll(namedTenants)) {
      List<Long> others = new ArrayList<>(namedTenants);
      others.removeAll(access.tenants());
      throw QueryException.forbidden("API key '" + access.keyId() + "' may read tenants " + access.tenants()
          + "; the query names " + others);
    }
    List<Expr> in = new ArrayList<>();
    in.add(new Expr.Column("tenant_id"));
    access.tenants().forEach(tenant -> in.add(new Expr.Literal(tenant)));
    Expr restriction = new Expr.Call(Op.IN, in);
    Expr where = statement.where() == null ? restriction : Expr.Call.of(Op.AND, restriction, statement.where());
    return new SelectStatement(statement.items(), statement.distinct(), where, statement.groupBy(),
        statement.having(), statement.orderBy(), statement.limit(), statement.offset(), statement.explain());
  }
}
