import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
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
 * A single real OpenSearch node on loopback, from the Maven Central jars on the classpath: the distribution's
 * launcher would load its modules from a home directory; here the two it needs (HTTP/transport and scaled_float) are
 * handed to the node as classpath plugins, as OpenSearch's own test framework does. Run with a JDK 21+ as a
 * single-file program: {@code java -cp 'lib/*' OpenSearchNode.java <home> <httpPort> <transportPort>}. Prints
 * {@code READY <httpPort>} once it serves; SIGTERM closes it.
 */
public final class OpenSearchNode extends Node {
  private OpenSearchNode(Environment environment, Collection<PluginInfo> plugins) {
    super(environment, plugins, true);
  }

  public static void main(String[] args) throws Exception {
    Path home = Path.of(args[0]).toAbsolutePath();
    int httpPort = Integer.parseInt(args[1]);
    int transportPort = Integer.parseInt(args[2]);
    Files.createDirectories(home.resolve("config"));
    Settings settings = Settings.builder()
        .put("path.home", home.toString())
        .put("path.data", home.resolve("data").toString())
        .put("path.logs", home.resolve("logs").toString())
        .put("cluster.name", "evenkeel-peer")
        .put("node.name", "peer-1")
        .put("discovery.type", "single-node")
        .put("network.host", "127.0.0.1")
        .put("http.port", httpPort)
        .put("transport.port", transportPort)
        // A nearly full shared disk must not turn the index read-only in the middle of a measurement.
        .put("cluster.routing.allocation.disk.threshold_enabled", false)
        .put("action.auto_create_index", false)
        .build();
    List<PluginInfo> plugins = List.of(Netty4ModulePlugin.class, MapperExtrasModulePlugin.class).stream()
        .map(OpenSearchNode::classpathPlugin).toList();
    Environment environment = InternalSettingsPreparer.prepareEnvironment(settings, Map.of(), null, () -> "peer-1");
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
