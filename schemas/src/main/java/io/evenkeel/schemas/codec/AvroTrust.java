package io.evenkeel.schemas.codec;

import org.apache.avro.util.ClassSecurityValidator;

/**
 * Tells Avro to trust Evenkeel's generated record classes.
 *
 * <p>Avro 1.12 refuses to load a class by a schema's name (when it resolves a writer schema, deep-copies a record or
 * builds one from another) unless the class is trusted. JVMs started by Evenkeel pass {@code
 * -Dorg.apache.avro.SERIALIZABLE_PACKAGES=io.evenkeel.schemas}; code that cannot rely on that flag calls {@link
 * #install()} before its first Avro use. Every other class keeps Avro's default policy.
 */
public final class AvroTrust {
  public static final String GENERATED_PACKAGE = "io.evenkeel.schemas";

  private static boolean installed;

  private AvroTrust() {}

  /** Idempotent. */
  public static synchronized void install() {
    if (installed) {
      return;
    }
    ClassSecurityValidator.ClassSecurityPredicate previous = ClassSecurityValidator.getGlobal();
    ClassSecurityValidator.setGlobal(ClassSecurityValidator.composite(
        previous, type -> GENERATED_PACKAGE.equals(type.getPackageName())));
    installed = true;
  }
}
