package io.evenkeel.router.protocol.internal;

import io.evenkeel.schemas.RoutingRule;
import io.evenkeel.schemas.RuleRound;
import io.evenkeel.schemas.RuleVote;
import io.evenkeel.schemas.codec.MalformedRecordException;
import io.evenkeel.schemas.codec.SingleObjectCodec;
import java.util.Locale;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.KeeperException;

/**
 * Where the protocol keeps its state under the cluster's root, and how each znode's bytes are encoded (Avro
 * single-object messages, so a reader of a later release still resolves them):
 *
 * <pre>
 * {root}/rules/rule-0000000000         RoutingRule  the committed list, append-only; the name is the rule's index
 * {root}/proposals/p-0000000000        RuleRound    one round (persistent sequential: rounds are decided in order)
 * {root}/votes/p-0000000000/{id}       RuleVote     participant id's vote; the master creates the parent to publish
 * {root}/participants/{id}             (empty)      ephemeral registration of every process that routes writes
 * {root}/master/...                    (Curator)    LeaderLatch: the master is the latch's leader
 * </pre>
 *
 * Votes live apart from the proposals so that the caches every participant and proposer keeps of the proposals do not
 * also fetch every vote of every round (n participants would read n^2 votes a round).
 */
public final class Layout {
  public static final SingleObjectCodec<RoutingRule> RULES = SingleObjectCodec.of(RoutingRule.class);
  public static final SingleObjectCodec<RuleRound> ROUNDS = SingleObjectCodec.of(RuleRound.class);
  public static final SingleObjectCodec<RuleVote> VOTES = SingleObjectCodec.of(RuleVote.class);

  private static final String RULE_PREFIX = "rule-";
  private static final String PROPOSAL_PREFIX = "p-";

  private final String root;

  public Layout(String root) {
    this.root = root;
  }

  public String root() {
    return root;
  }

  public String rules() {
    return root + "/rules";
  }

  /** Zero-padded so that names sort in index order. */
  public String rule(long index) {
    return rules() + "/" + RULE_PREFIX + String.format(Locale.ROOT, "%010d", index);
  }

  /** The index a rule znode's name carries, or -1 for a name that is not a rule's. */
  public static long ruleIndex(String name) {
    if (!name.startsWith(RULE_PREFIX)) {
      return -1;
    }
    try {
      return Long.parseLong(name.substring(RULE_PREFIX.length()));
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  public String proposals() {
    return root + "/proposals";
  }

  /** The prefix a proposer creates its sequential proposal znode with. */
  public String newProposal() {
    return proposals() + "/" + PROPOSAL_PREFIX;
  }

  public String proposal(String name) {
    return proposals() + "/" + name;
  }

  public static boolean isProposal(String name) {
    return name.startsWith(PROPOSAL_PREFIX);
  }

  /** The proposal's name if {@code path} is a proposal znode (a direct child of {@link #proposals()}), else null. */
  public String proposalAt(String path) {
    ZKPaths.PathAndNode parts = ZKPaths.getPathAndNode(path);
    return parts.getPath().equals(proposals()) && isProposal(parts.getNode()) ? parts.getNode() : null;
  }

  public String votes() {
    return root + "/votes";
  }

  /** The parent of one round's votes. */
  public String votes(String proposal) {
    return votes() + "/" + proposal;
  }

  public String vote(String proposal, String participant) {
    return votes(proposal) + "/" + participant;
  }

  public String participants() {
    return root + "/participants";
  }

  public String participant(String id) {
    return participants() + "/" + id;
  }

  public String masterLatch() {
    return root + "/master";
  }

  /** Creates the persistent parents (not containers: ZooKeeper deletes an emptied container, resetting sequences). */
  public void ensurePaths(CuratorFramework client) throws Exception {
    for (String path : new String[] {rules(), proposals(), votes(), participants(), masterLatch()}) {
      try {
        client.create().creatingParentsIfNeeded().forPath(path);
      } catch (KeeperException.NodeExistsException alreadyThere) {
        // Another process created it first.
      }
    }
  }

  /** Decodes a znode's bytes; a znode that does not hold the expected record is a corrupt cluster state. */
  public static <T> T decode(SingleObjectCodec<T> codec, String path, byte[] bytes) {
    try {
      return codec.decode(bytes);
    } catch (MalformedRecordException e) {
      throw new IllegalStateException("znode " + path + " does not hold a " + codec.schema().getName() + ": "
          + e.getMessage(), e);
    }
  }

  /** Participant and proposer ids name znodes. */
  public static String checkId(String what, String id) {
    if (id == null || id.isEmpty() || id.contains("/") || id.equals(".") || id.equals("..")) {
      throw new IllegalArgumentException(what + " must be a non-empty name without '/'; got: "
          + (id == null ? "null" : "'" + id + "'"));
    }
    return id;
  }
}
