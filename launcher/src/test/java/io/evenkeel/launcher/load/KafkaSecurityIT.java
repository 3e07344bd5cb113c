package io.evenkeel.launcher.load;

import static org.assertj.core.api.Assertions.assertThat;

import io.evenkeel.embedded.FreePorts;
import io.evenkeel.embedded.KafkaBroker;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code bin/evenkeel load --kafka-config}: the Kafka client settings reach the producer as they are, so a broker
 * that takes only SASL/PLAIN clients gets the rows with the right password and refuses the load with a wrong one.
 */
class KafkaSecurityIT {
  private static final Path REPO = Path.of(System.getProperty("user.dir")).getParent();

  @TempDir Path dir;

  @Test
  void theLoaderAuthenticatesWithThePropertiesItIsGiven() throws Exception {
    int[] ports = FreePorts.pick(3);
    int saslPort = ports[2];
    try (KafkaBroker broker = KafkaBroker.builder(dir.resolve("kafka"))
        .ports(ports[0], ports[1]).saslPlain(saslPort, "loader", "s3cret").start()) {
      broker.createTopic("secured", 2);
      Path rows = dir.resolve("rows.jsonl");
      List<String> lines = new ArrayList<>();
      for (int i = 0; i < 500; i++) {
        lines.add("{\"tenant_id\": " + (1 + i % 7) + ", \"row_id\": " + i + ", \"created_time\": 1700000000000}");
      }
      Files.write(rows, lines);

      String loaded = load(rows, saslPort, config("s3cret"));
      assertThat(loaded).contains("loaded 500 rows");
      try (Admin admin = broker.admin()) {
        long records = 0;
        for (var offset : admin.listOffsets(Map.of(new TopicPartition("secured", 0), OffsetSpec.latest(),
            new TopicPartition("secured", 1), OffsetSpec.latest())).all().get(30, TimeUnit.SECONDS).values()) {
          records += offset.offset();
        }
        assertThat(records).isEqualTo(500);
      }
      assertThat(load(rows, saslPort, config("guess"))).contains("load failed").contains("Authentication failed");
    }
  }

  private Path config(String password) throws Exception {
    Path file = dir.resolve("kafka-" + password + ".properties");
    Files.writeString(file, String.join("\n", "security.protocol=SASL_PLAINTEXT", "sasl.mechanism=PLAIN",
        "sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username=\"loader\" "
            + "password=\"" + password + "\";"));
    return file;
  }

  private String load(Path rows, int port, Path kafkaConfig) throws Exception {
    Process process = new ProcessBuilder(REPO.resolve("bin/evenkeel").toString(), "load", rows.toString(),
        "--bootstrap-servers", "127.0.0.1:" + port, "--topic", "secured", "--kafka-config", kafkaConfig.toString())
        .directory(dir.toFile()).redirectErrorStream(true).start();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(process.waitFor(2, TimeUnit.MINUTES)).isTrue();
    return output;
  }
}
