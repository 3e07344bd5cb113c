package io.evenkeel.query.auth;

import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * What a caller may read: every tenant (an admin key, or a service without keys), or the rows of some tenants only.
 *
 * @param tenants the tenants a tenant key may read; null for all
 */
public record Access(String keyId, SortedSet<Long> tenants) {
  /** Every tenant: what a service without keys gives every caller. */
  public static final Access ALL = new Access("-", null);

  public Access {
    tenants = tenants == null ? null : new TreeSet<>(tenants);
  }

  public static Access admin(String keyId) {
    return new Access(keyId, null);
  }

  public static Access tenants(String keyId, Set<Long> tenants) {
    if (tenants.isEmpty()) {
      throw new IllegalArgumentException("a tenant key needs at least one tenant");
    }
    return new Access(keyId, new TreeSet<>(tenants));
  }

  public boolean isAdmin() {
    return tenants == null;
  }
}
