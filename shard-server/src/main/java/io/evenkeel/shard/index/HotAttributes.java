package io.evenkeel.shard.index;

import io.evenkeel.cluster.attributes.HotAttributeList;
import java.util.Set;
import java.util.TreeSet;

/**
 * The attribute keys a shard server indexes now (frequency-based indexing), shared by all its shards and replaced
 * while they run when the cluster agrees on a new list. A row is indexed under the list of the moment it is
 * written, and its document says so ({@link RowDocuments}): which keys a document indexed is a fact of the document,
 * so a list that changes never makes an answer wrong, only slower for the documents written before it.
 */
public final class HotAttributes {
  private volatile Set<String> keys;

  private HotAttributes(Set<String> keys) {
    this.keys = checked(keys);
  }

  public static HotAttributes of(Set<String> keys) {
    return new HotAttributes(keys);
  }

  /** The keys indexed now. */
  public Set<String> keys() {
    return keys;
  }

  /** Indexes {@code next} from now on; returns whether that changed anything. */
  public boolean set(Set<String> next) {
    Set<String> checked = checked(next);
    boolean changed = !checked.equals(keys);
    keys = checked;
    return changed;
  }

  private static Set<String> checked(Set<String> keys) {
    for (String key : keys) {
      if (!HotAttributeList.isValidKey(key)) {
        throw new IllegalArgumentException("a hot attribute key is non-empty and has no ';' or ':'; got: '" + key
            + "'");
      }
    }
    return Set.copyOf(keys);
  }

  @Override
  public String toString() {
    return new TreeSet<>(keys).toString();
  }
}
