import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.opensearch.Version;
import org.opensearch.common.settings.Settings;
import org.opensearch.env.Environment;
import org.opensearch.index.mapper.MapperExtrasModulePlugin;
import org.opensearch.node.InternalSettingsPreparer;
import org.opensearch.node.Node;
import org.opensearch.plugins.Plugin;
import org.opensearch.plugins.PluginInfo;
import org.opensearch.transport.Netty4ModulePlugin;

/**
 * A real OpenSearch node on loopback, from the Maven Central jars on the classpath: the distribution's launcher would
 * load its modules from a home directory; here the two it needs (HTTP/transport and scaled_float) are handed to the
 * node as classpath plugins, as OpenSearch's own test framework does. Run with a JDK 21+ as a single-file program:
 * {@code java -cp 'lib/*' OpenSearchNode.java <home> <httpPort> <transportPort>} for a cluster of this node alone, or
 * with {@code <nodeName> <seedTransportPorts> <initialManagerNodeNames>} (both comma-separated) added for one node of
 * a loopback cluster: it finds the others at {@code 127.0.0.1:<seedTransportPort>}, and the named nodes, which must
 * all be started alike, bootstrap the cluster the first time (its homes must then be fresh). Prints
 * {@code READY <httpPort>} once it serves, which for a cluster node may be before the cluster has formed; SIGTERM
 * closes it.
 *
 * <p>Production bootstrap checks (heap, file descriptors, mmap count) do not apply: they run only in the
 * distribution's launcher, which on loopback would merely log them as warnings.
 */
public final class OpenSearchNode extends Node {
  private OpenSearchNode(Environment environment, Collection<PluginInfo> plugins) {
    super(environment, plugins, true);
  }

  public static void main(String[] args) throws Exception {
    if (args.length != 3 && args.length != 6) {
      throw new IllegalArgumentException("usage: OpenSearchNode <home> <httpPort> <transportPort>"
          + " [<nodeName> <seedTransportPorts,...> <initialManagerNodeNames,...>]");
    }
    Path home = Path.of(args[0]).toAbsolutePath();
    int httpPort = Integer.parseInt(args[1]);
    int transportPort = Integer.parseInt(args[2]);
    boolean clustered = args.length == 6;
    String nodeName = clustered ? args[3] : "peer-1";
    Files.createDirectories(home.resolve("config"));
    Settings.Builder builder = Settings.builder()
        .put("path.home", home.toString())
        .put("path.data", home.resolve("data").toString())
        .put("path.logs", home.resolve("logs").toString())
        .put("cluster.name", "evenkeel-peer")
        .put("node.name", nodeName);
    if (clustered) {
      builder.putList("discovery.seed_hosts", Arrays.stream(args[4].split(",")).map(port -> "127.0.0.1:" + port.trim())
          .toList());
      builder.putList("cluster.initial_cluster_manager_nodes", Arrays.stream(args[5].split(",")).map(String::trim)
          .toList());
    } else {
      builder.put("discovery.type", "single-node");
    }
    Settings settings = builder
        .put("network.host", "127.0.0.1")
        .put("http.port", httpPort)
        .put("transport.port", transportPort)
        // A nearly full shared disk must not turn the index read-only in the middle of a measurement.
        .put("cluster.routing.allocation.disk.threshold_enabled", false)
        .put("action.auto_create_index", false)
        .build();
    List<PluginInfo> plugins = List.of(Netty4ModulePlugin.class, MapperExtrasModulePlugin.class).stream()
        .map(OpenSearchNode::classpathPlugin).toList();
    Environment environment = InternalSettingsPreparer.prepareEnvironment(settings, Map.of(), null, () -> nodeName);
    OpenSearchNode node = new OpenSearchNode(environment, plugins);
    CountDownLatch closed = new CountDownLatch(1);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      try {
        node.close();
        node.awaitClose(30, TimeUnit.SECONDS);
      } catch (Exception e) {
        e.printStackTrace();
      } finally {
        closed.countDown();
      }
    }, "opensearch-node-close"));
    node.start();
    System.out.println("READY " + httpPort + " OpenSearch " + Version.CURRENT + " (Lucene "
        + org.apache.lucene.util.Version.LATEST + ") on Java " + Runtime.version());
    System.out.flush();
    closed.await();
  }

  private static PluginInfo classpathPlugin(Class<? extends Plugin> plugin) {
    return new PluginInfo(plugin.getName(), "classpath module", Version.CURRENT.toString(), Version.CURRENT,
        Integer.toString(Runtime.version().feature()), plugin.getName(), null, List.of(), false);
  }
}
