package io.evenkeel.schemas.codec;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.apache.avro.Schema;
import org.apache.avro.message.SchemaStore;

/**
 * The writer schemas a reader can resolve by fingerprint. Single-object records carry only the 64-bit fingerprint of
 * their writer schema; to read records written with an older schema, the reader must know that schema.
 *
 * <p>When a schema in {@code src/main/avro} changes, copy its previous version into {@code
 * src/main/resources/io/evenkeel/schemas/history/} and add the file name to {@code history.list} there: {@link
 * #bundled()} then resolves records written by every earlier release.
 */
public final class SchemaHistory {
  static final String BUNDLED_DIR = "/io/evenkeel/schemas/history/";

  private SchemaHistory() {}

  /** The schemas of earlier releases shipped with this jar (possibly none). */
  public static List<Schema> bundled() {
    List<Schema> schemas = new ArrayList<>();
    try (InputStream list = SchemaHistory.class.getResourceAsStream(BUNDLED_DIR + "history.list")) {
      if (list == null) {
        return schemas;
      }
      for (String line : new String(list.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
        String name = line.strip();
        if (name.isEmpty() || name.startsWith("#")) {
          continue;
        }
        try (InputStream in = SchemaHistory.class.getResourceAsStream(BUNDLED_DIR + name)) {
          Objects.requireNonNull(in, () -> "history.list names " + name + " but " + BUNDLED_DIR + name + " is missing");
          schemas.add(new Schema.Parser().parse(in));
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the bundled schema history", e);
    }
    return schemas;
  }

  /** A store that resolves the given schemas by their single-object fingerprint. */
  public static SchemaStore storeOf(Iterable<Schema> schemas) {
    SchemaStore.Cache store = new SchemaStore.Cache();
    schemas.forEach(store::addSchema);
    return store;
  }
}
