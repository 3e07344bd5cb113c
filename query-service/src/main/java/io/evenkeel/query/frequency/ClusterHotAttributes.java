package io.evenkeel.query.frequency;

import io.evenkeel.cluster.attributes.HotAttributeList;
import io.evenkeel.query.parse.AttributeFrequency;
import java.util.Set;
import java.util.function.Consumer;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.leader.LeaderLatch;

/**
 * A query service's part in the cluster's hot attribute list: it follows the list (filters on its keys go to the
 * shards' index from the next query on) and, unless {@code top} is 0, runs in the election of the one service that
 * publishes the list from its query counts ({@link HotAttributePublisher}).
 */
public final class ClusterHotAttributes implements AutoCloseable {
  private final HotAttributeList list;
  private final LeaderLatch latch;
  private final HotAttributePublisher publisher;

  private ClusterHotAttributes(HotAttributeList list, LeaderLatch latch, HotAttributePublisher publisher) {
    this.list = list;
    this.latch = latch;
    this.publisher = publisher;
  }

  /**
   * Starts following the list under the cluster's {@code root}, handing each published list to {@code apply}, and
   * publishing it from {@code frequency}; the caller closes {@code client}.
   */
  public static ClusterHotAttributes start(AttributeFrequency frequency, Consumer<Set<String>> apply,
      CuratorFramework client, String root, HotAttributePublisher.Settings settings) throws Exception {
    HotAttributeList list = new HotAttributeList(client, root).start();
    list.addListener(published -> {
      if (published.version() >= 0) {
        apply.accept(published.keys());
      }
    });
    if (settings.top() == 0) {
      return new ClusterHotAttributes(list, null, null);
    }
    LeaderLatch latch = new LeaderLatch(client, HotAttributeList.leaderPath(root));
    latch.start();
    HotAttributePublisher publisher = new HotAttributePublisher(frequency, list,
        latch::hasLeadership, settings).start();
    return new ClusterHotAttributes(list, latch, publisher);
  }

  @Override
  public void close() throws Exception {
    if (publisher != null) {
      publisher.close();
      latch.close();
    }
    list.close();
  }
}
