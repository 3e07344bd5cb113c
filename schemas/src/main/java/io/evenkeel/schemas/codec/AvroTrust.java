package io.evenkeel.schemas.codec;

import org.apache.avro.util.ClassSecurityValidator;

/**
 * Tells Avro to trust Evenkeel's generated record classes.
 *
 * <p>Avro 1.12 refuses to load a class by a schema's name (when it resolves a writer schema, deep-copies a record or
 * builds one from another) unless the class is trusted. JVMs started by Evenkeel pass {@code
 * -Dorg.apache.avro.SERIALIZABLE_PACKAGES=io.evenkeel.schemas}; code that cannot rely on that flag calls {@link
 * #install()} before its first Avro use. Every other class keeps Avro's default policy.
 *
 * <p>It also bounds what a record may claim to hold: Avro allocates a string or byte array of the length a record's
 * bytes announce before reading it, so a hostile or corrupt record announcing two gigabytes would exhaust the heap.
 * Avro reads these limits once, when it first checks one, so {@link #install()} must come before the first decode.
 */
public final class AvroTrust {
  public static final String GENERATED_PACKAGE = "io.evenkeel.schemas";
  /** The longest string or byte array a record may hold; a write batch is many records, not one long field. */
  public static final int MAX_FIELD_BYTES = 16 * 1024 * 1024;

  private static final String[] LIMITS = {"org.apache.avro.limits.string.maxLength",
      "org.apache.avro.limits.bytes.maxLength"};

  private static boolean installed;

  private AvroTrust() {}

  /** Idempotent. */
  public static synchronized void install() {
    if (installed) {
      return;
    }
    for (String limit : LIMITS) {
      if (System.getProperty(limit) == null) {
        System.setProperty(limit, Integer.toString(MAX_FIELD_BYTES));
      }
    }
    ClassSecurityValidator.ClassSecurityPredicate previous = ClassSecurityValidator.getGlobal();
    ClassSecurityValidator.setGlobal(ClassSecurityValidator.composite(
        previous, type -> GENERATED_PACKAGE.equals(type.getPackageName())));
    installed = true;
  }
}
