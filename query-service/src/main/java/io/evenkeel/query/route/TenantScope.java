package io.evenkeel.query.route;

import io.evenkeel.expr.Op;
import io.evenkeel.expr.SqlValues;
import io.evenkeel.query.normalize.Field;
import io.evenkeel.query.normalize.Predicate;
import io.evenkeel.query.normalize.Values;
import java.math.BigDecimal;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * The tenants a WHERE clause can match and the created_time interval of those rows, read from the normalized
 * predicate: {@code tenant_id = k} or {@code IN}, and created_time bounds, through AND (intersection) and OR (union,
 * when every branch names tenants). Conservative: it never excludes a shard a matching row could be on.
 *
 * @param tenants null when the predicate does not restrict the tenant
 * @param from inclusive lower bound of created_time
 * @param to inclusive upper bound of created_time
 */
record TenantScope(Set<Long> tenants, long from, long to) {
  static final TenantScope ANY = new TenantScope(null, Long.MIN_VALUE, Long.MAX_VALUE);
  private static final TenantScope NOTHING = new TenantScope(Set.of(), 1, 0);

  static TenantScope of(Predicate predicate) {
    if (predicate instanceof Predicate.Constant constant) {
      return constant.value() ? ANY : NOTHING;
    }
    if (predicate instanceof Predicate.And and) {
      TenantScope scope = ANY;
      for (Predicate child : and.children()) {
        scope = scope.intersect(of(child));
      }
      return scope;
    }
    if (predicate instanceof Predicate.Or or) {
      TenantScope scope = null;
      for (Predicate child : or.children()) {
        TenantScope branch = of(child);
        scope = scope == null ? branch : scope.union(branch);
      }
      return scope == null ? ANY : scope;
    }
    return leaf(predicate);
  }

  boolean isEmpty() {
    return (tenants != null && tenants.isEmpty()) || from > to;
  }

  private static TenantScope leaf(Predicate predicate) {
    if (predicate instanceof Predicate.Compare compare && compare.op() == Op.EQ && is(compare.field(), "tenant_id")) {
      return tenants(List.of(compare.value()));
    }
    if (predicate instanceof Predicate.In in && !in.negated() && is(in.field(), "tenant_id")) {
      return tenants(in.values());
    }
    if (predicate instanceof Predicate.Compare compare && is(compare.field(), "created_time")) {
      Object v = compare.value();
      return switch (compare.op()) {
        case EQ -> new TenantScope(null, Values.ceilLong(v, true), Values.floorLong(v, true));
        case LT, LE -> new TenantScope(null, Long.MIN_VALUE, Values.floorLong(v, compare.op() == Op.LE));
        case GT, GE -> new TenantScope(null, Values.ceilLong(v, compare.op() == Op.GE), Long.MAX_VALUE);
        default -> ANY;
      };
    }
    if (predicate instanceof Predicate.Range range && is(range.field(), "created_time")) {
      long from = range.lower() == null ? Long.MIN_VALUE : Values.ceilLong(range.lower(), range.lowerInclusive());
      long to = range.upper() == null ? Long.MAX_VALUE : Values.floorLong(range.upper(), range.upperInclusive());
      return new TenantScope(null, from, to);
    }
    return ANY;
  }

  /** Tenant ids are integers: a fractional value names no tenant. */
  private static TenantScope tenants(List<Object> values) {
    Set<Long> ids = new TreeSet<>();
    for (Object value : values) {
      BigDecimal v = SqlValues.decimal(value);
      if (v.stripTrailingZeros().scale() <= 0) {
        ids.add(v.longValueExact());
      }
    }
    return new TenantScope(ids, Long.MIN_VALUE, Long.MAX_VALUE);
  }

  private TenantScope intersect(TenantScope other) {
    Set<Long> ids;
    if (tenants == null || other.tenants == null) {
      ids = tenants == null ? other.tenants : tenants;
    } else {
      ids = new TreeSet<>(tenants);
      ids.retainAll(other.tenants);
    }
    return new TenantScope(ids, Math.max(from, other.from), Math.min(to, other.to));
  }

  private TenantScope union(TenantScope other) {
    if (isEmpty()) {
      return other;
    }
    if (other.isEmpty()) {
      return this;
    }
    Set<Long> ids = null;
    if (tenants != null && other.tenants != null) {
      ids = new HashSet<>(tenants);
      ids.addAll(other.tenants);
      ids = new TreeSet<>(ids);
    }
    return new TenantScope(ids, Math.min(from, other.from), Math.max(to, other.to));
  }

  private static boolean is(Field field, String column) {
    return !field.isAttribute() && field.column().equals(column);
  }
}
