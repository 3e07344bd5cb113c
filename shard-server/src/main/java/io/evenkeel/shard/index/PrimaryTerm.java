package io.evenkeel.shard.index;

/**
 * The term a primary copy writes in: every promotion starts a higher one, so replicas can tell a new primary's points
 * from an old one's.
 *
 * @param term the term, or -1 for the one recorded in the index's last commit (1 for a new index)
 * @param forceVersion -1, or a segment-infos version to continue above: a promoted replica passes the version it last
 *     searched, since other replicas may have seen versions above its last commit
 */
public record PrimaryTerm(long term, long forceVersion) {
  /** The term of the index's last commit: a primary restarted as it was. */
  public static final PrimaryTerm COMMITTED = new PrimaryTerm(-1, -1);

  public PrimaryTerm {
    if (term < -1 || term == 0) {
      throw new IllegalArgumentException("a primary term is >= 1 (or -1 for the committed one); got: " + term);
    }
  }

  long resolve(long committedTerm) {
    return term > 0 ? term : Math.max(1, committedTerm);
  }
}
