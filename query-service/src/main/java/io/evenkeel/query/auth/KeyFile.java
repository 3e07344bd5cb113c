package io.evenkeel.query.auth;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * The API key file: one key per line, {@code <id> <bcrypt hash of the secret> admin} or {@code <id> <hash> tenant
 * <tenant>[,<tenant>...]}; blank lines and lines starting with {@code #} are ignored. A line that does not parse makes
 * the whole file invalid, naming the line: a half-read key file must not silently drop a key (or its restriction).
 */
final class KeyFile {
  private static final Pattern ID = Pattern.compile("[A-Za-z0-9_-]{1,64}");
  private static final Pattern BCRYPT = Pattern.compile("\\$2[abxy]?\\$\\d\\d\\$[./A-Za-z0-9]{53}");

  private KeyFile() {}

  /** The keys of {@code file} by id; throws IOException naming the file and line of the first problem. */
  static Map<String, ApiKey> read(Path file) throws IOException {
    List<String> lines = Files.readAllLines(file);
    Map<String, ApiKey> keys = new HashMap<>();
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i).strip();
      if (line.isEmpty() || line.startsWith("#")) {
        continue;
      }
      ApiKey key;
      try {
        key = parse(line.split("\\s+"));
      } catch (IllegalArgumentException e) {
        throw new IOException(file + " line " + (i + 1) + ": " + e.getMessage());
      }
      if (keys.put(key.id(), key) != null) {
        throw new IOException(file + " line " + (i + 1) + ": key id '" + key.id() + "' is given twice");
      }
    }
    return keys;
  }

  private static ApiKey parse(String[] fields) {
    if (fields.length < 3) {
      throw new IllegalArgumentException("expected '<id> <bcrypt hash> admin' or '<id> <bcrypt hash> tenant 7,9'");
    }
    String id = fields[0];
    if (!ID.matcher(id).matches()) {
      throw new IllegalArgumentException("a key id is 1-64 letters, digits, '_' or '-'; got '" + id + "'");
    }
    String hash = fields[1];
    if (!BCRYPT.matcher(hash).matches()) {
      throw new IllegalArgumentException("the secret's hash must be a bcrypt hash ($2y$10$...), not the secret");
    }
    return switch (fields[2]) {
      case "admin" -> {
        if (fields.length != 3) {
          throw new IllegalArgumentException("an admin key takes no tenants");
        }
        yield ApiKey.admin(id, hash);
      }
      case "tenant" -> {
        if (fields.length != 4) {
          throw new IllegalArgumentException("a tenant key names its tenants: tenant 7 or tenant 7,9");
        }
        yield ApiKey.tenant(id, hash, tenants(fields[3]));
      }
      default -> throw new IllegalArgumentException("the role must be admin or tenant; got '" + fields[2] + "'");
    };
  }

  private static Set<Long> tenants(String list) {
    Set<Long> tenants = new TreeSet<>();
    for (String tenant : list.split(",")) {
      try {
        tenants.add(Long.parseLong(tenant));
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException("tenants are integers separated by commas; got '" + list + "'");
      }
    }
    return tenants;
  }
}
