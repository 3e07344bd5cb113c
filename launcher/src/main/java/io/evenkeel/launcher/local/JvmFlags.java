package io.evenkeel.launcher.local;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

/**
 * The flags every Evenkeel JVM runs with (the parent pom's {@code evenkeel.jvm.flags}, filtered into a resource at
 * build time, so the list lives in one place): Avro's trusted packages and Flink's Java 17 module opens.
 */
public final class JvmFlags {
  private JvmFlags() {}

  public static List<String> all() {
    try (InputStream in = JvmFlags.class.getResourceAsStream("jvm-flags.txt")) {
      if (in == null) {
        throw new IllegalStateException("jvm-flags.txt is missing from the launcher jar");
      }
      return Arrays.stream(new String(in.readAllBytes(), StandardCharsets.UTF_8).strip().split("\\s+")).toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
