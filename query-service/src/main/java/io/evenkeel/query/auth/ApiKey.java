package io.evenkeel.query.auth;

import java.util.Set;

/**
 * One API key as the key file holds it: its public id, the bcrypt hash of its secret, and what it may read. A caller
 * presents {@code <id>.<secret>}.
 */
record ApiKey(String id, String secretHash, Access access) {
  static ApiKey admin(String id, String secretHash) {
    return new ApiKey(id, secretHash, Access.admin(id));
  }

  static ApiKey tenant(String id, String secretHash, Set<Long> tenants) {
    return new ApiKey(id, secretHash, Access.tenants(id, tenants));
  }
}
