package io.evenkeel.query.optimize;

import io.evenkeel.query.normalize.Field;
import io.evenkeel.query.normalize.Predicate;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/** The ANDed predicates of one WHERE clause (or OR branch) while the access rules claim them. */
public final class ConjunctGroup {
  private final List<Predicate> remaining;
  private final List<AccessPlan> chosen = new ArrayList<>();
  private final OptimizerSettings settings;
  private final Function<Predicate, AccessPlan> planner;

  ConjunctGroup(List<Predicate> conjuncts, OptimizerSettings settings, Function<Predicate, AccessPlan> planner) {
    this.remaining = new ArrayList<>(conjuncts);
    this.settings = settings;
    this.planner = planner;
  }

  /** The predicates no rule has claimed yet (a copy). */
  public List<Predicate> remaining() {
    return List.copyOf(remaining);
  }

  public List<AccessPlan> chosen() {
    return List.copyOf(chosen);
  }

  public OptimizerSettings settings() {
    return settings;
  }

  /** Plans a nested predicate (an OR branch) with the same rules. */
  public AccessPlan plan(Predicate predicate) {
    return planner.apply(predicate);
  }

  /** Removes {@code claimed} from the remaining predicates and adds {@code access} to the plan. */
  public void claim(List<Predicate> claimed, AccessPlan access) {
    for (Predicate predicate : claimed) {
      if (!remaining.remove(predicate)) {
        throw new IllegalStateException(predicate + " is not an unclaimed predicate of " + remaining);
      }
    }
    chosen.add(access);
  }

  /** Whether the shards can answer {@code predicate} by themselves (no residual, no cold attribute key). */
  public boolean pushable(Predicate predicate) {
    if (predicate instanceof Predicate.Residual) {
      return false;
    }
    if (predicate instanceof Predicate.And and) {
      return and.children().stream().allMatch(this::pushable);
    }
    if (predicate instanceof Predicate.Or or) {
      return or.children().stream().allMatch(this::pushable);
    }
    Field field = fieldOf(predicate);
    return field == null || !field.isAttribute() || settings.hotAttributes().contains(field.attributeKey());
  }

  static Field fieldOf(Predicate predicate) {
    if (predicate instanceof Predicate.Compare p) {
      return p.field();
    }
    if (predicate instanceof Predicate.In p) {
      return p.field();
    }
    if (predicate instanceof Predicate.Range p) {
      return p.field();
    }
    if (predicate instanceof Predicate.IsNull p) {
      return p.field();
    }
    if (predicate instanceof Predicate.Like p) {
      return p.field();
    }
    if (predicate instanceof Predicate.Match p) {
      return Field.column(p.column());
    }
    return null;
  }

  AccessPlan result() {
    if (!remaining.isEmpty()) {
      throw new IllegalStateException("no access rule claimed " + remaining);
    }
    return chosen.size() == 1 ? chosen.get(0) : new AccessPlan.Conjunction(chosen);
  }
}
