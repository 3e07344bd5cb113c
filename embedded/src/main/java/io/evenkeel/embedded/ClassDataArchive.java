package io.evenkeel.embedded;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.jar.JarFile;
import java.util.stream.Stream;

/**
 * A class-data archive (AppCDS) for one kind of child JVM: the classes its first run loaded, written by that JVM as it
 * exits ({@code -XX:ArchiveClassesAtExit}, JDK 17's dynamic archive), then mapped by every later start
 * ({@code -XX:SharedArchiveFile}) instead of being read, parsed and verified again. A Kafka broker starts with about
 * a quarter less CPU; on two cores shared by a whole stack, that is seconds of start-up.
 *
 * <p>Only a JVM whose classpath holds jars alone has one (a directory makes the JVM's dump fail as it exits, with
 * exit code 1). An archive is named by the JVM, the main class or jar and the classpath, and by the size and time of every jar
 * on it: a rebuilt jar gets a new archive, and the archives of earlier builds of the same command are deleted when it
 * is written. One start at a time writes an archive (it holds a claim file; a claim older than
 * {@link #CLAIM_EXPIRY} is taken over); the JVM writes it to a temporary file, moved into place only after that JVM
 * exited normally or on SIGINT or SIGTERM: the JVM does not check a dynamic archive's contents, and a truncated one
 * crashes it. The JVM's own CDS messages are switched off, so a child's output is the same with or without one.
 */
final class ClassDataArchive {
  /** Where archives live; unset or empty: none. */
  static final String DIRECTORY_VARIABLE = "EVENKEEL_CLASS_DATA_DIR";
  static final Duration CLAIM_EXPIRY = Duration.ofMinutes(10);
  /** Normal exit, and the exit codes of a JVM stopped by SIGINT or SIGTERM: the dump at exit completed. */
  private static final Set<Integer> CLEAN_EXITS = Set.of(0, 128 + 2, 128 + 15);
  private static final String SILENT = "-Xlog:cds*=off";

  private static final ClassDataArchive NONE = new ClassDataArchive(null, null, null, List.of());

  private final Path archive;
  private final Path claim;
  private final Path written;
  private final List<String> jvmOptions;

  private ClassDataArchive(Path archive, Path claim, Path written, List<String> jvmOptions) {
    this.archive = archive;
    this.claim = claim;
    this.written = written;
    this.jvmOptions = jvmOptions;
  }

  /** The directory {@value #DIRECTORY_VARIABLE} names; null when unset or empty. */
  static Path configuredDirectory() {
    String value = System.getenv(DIRECTORY_VARIABLE);
    return value == null || value.isBlank() ? null : Path.of(value.strip());
  }

  /**
   * The archive of {@code java -cp classpath target} (or {@code java -jar target} when {@code jar}): used when it
   * exists, else written by this start when no other start is writing it. None when {@code directory} is null or
   * cannot be written: a JVM without an archive only starts slower.
   */
  static ClassDataArchive of(Path directory, String target, boolean jar, String classpath) {
    if (directory == null) {
      return NONE;
    }
    try {
      Files.createDirectories(directory);
      List<Path> entries = jar ? List.of(Path.of(target)) : classpathEntries(classpath);
      if (entries.stream().anyMatch(Files::isDirectory)) {
        // The JVM archives classes from jars only, and fails at exit when one came from a directory.
        return NONE;
      }
      String command = digest(System.getProperty("java.home") + '\n' + System.getProperty("java.vm.version") + '\n'
          + jar + '\n' + target + '\n' + classpath);
      StringBuilder contents = new StringBuilder();
      for (Path entry : entries) {
        if (Files.exists(entry)) {
          BasicFileAttributes attributes = Files.readAttributes(entry, BasicFileAttributes.class);
          contents.append(entry).append(' ').append(attributes.size()).append(' ')
              .append(attributes.lastModifiedTime().toMillis()).append('\n');
        }
      }
      String prefix = name(target, jar) + "-" + command + "-";
      Path archive = directory.resolve(prefix + digest(contents.toString()) + ".jsa");
      if (Files.isRegularFile(archive)) {
        return new ClassDataArchive(archive, null, null, List.of(SILENT, "-XX:SharedArchiveFile=" + archive));
      }
      Path claim = directory.resolve(archive.getFileName() + ".claim");
      if (!claimed(claim)) {
        return NONE;
      }
      // Held now: what a writer whose claim expired left behind is of no use.
      try (DirectoryStream<Path> left = Files.newDirectoryStream(directory, archive.getFileName() + ".*.tmp")) {
        left.forEach(ClassDataArchive::deleteQuietly);
      }
      Path written = directory.resolve(archive.getFileName() + "." + UUID.randomUUID() + ".tmp");
      return new ClassDataArchive(archive, claim, written, List.of(SILENT, "-XX:ArchiveClassesAtExit=" + written));
    } catch (IOException | UncheckedIOException e) {
      return NONE;
    }
  }

  /** Options for the child JVM's command line. */
  List<String> jvmOptions() {
    return jvmOptions;
  }

  /**
   * Moves the archive the child wrote into place if it exited cleanly with {@code exitCode}; releases the claim
   * either way.
   */
  void publish(int exitCode) {
    if (written == null) {
      return;
    }
    try {
      if (CLEAN_EXITS.contains(exitCode) && Files.isRegularFile(written) && Files.size(written) > 0) {
        Files.move(written, archive, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        deleteEarlierBuilds();
      }
    } catch (IOException e) {
      // The next start writes one again.
    } finally {
      deleteQuietly(written);
      deleteQuietly(claim);
    }
  }

  /** Archives of the same command with other jars (an earlier build): no start can use them again. */
  private void deleteEarlierBuilds() throws IOException {
    String name = archive.getFileName().toString();
    String prefix = name.substring(0, name.lastIndexOf('-') + 1);
    try (DirectoryStream<Path> siblings = Files.newDirectoryStream(archive.getParent(), prefix + "*.jsa")) {
      for (Path sibling : siblings) {
        if (!sibling.equals(archive)) {
          deleteQuietly(sibling);
        }
      }
    }
  }

  /** Takes the claim to write an archive: a new claim file, or one whose writer has had long enough. */
  private static boolean claimed(Path claim) throws IOException {
    try {
      Files.createFile(claim);
      return true;
    } catch (FileAlreadyExistsException taken) {
      try {
        if (Files.getLastModifiedTime(claim).toInstant().isBefore(Instant.now().minus(CLAIM_EXPIRY))) {
          Files.setLastModifiedTime(claim, FileTime.from(Instant.now()));
          return true;
        }
      } catch (IOException gone) {
        // Released meanwhile: the archive is there, or another start writes it.
      }
      return false;
    }
  }

  /** The jars and directories of a classpath, with {@code dir/*} expanded to the jars in it, as the JVM does. */
  private static List<Path> classpathEntries(String classpath) {
    List<Path> entries = new ArrayList<>();
    for (String element : classpath.split(File.pathSeparator)) {
      if (element.endsWith("*")) {
        Path dir = Path.of(element.substring(0, element.length() - 1));
        try (Stream<Path> jars = Files.list(dir)) {
          jars.filter(p -> p.toString().endsWith(".jar")).sorted().forEach(entries::add);
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      } else if (!element.isEmpty()) {
        entries.add(Path.of(element));
      }
    }
    for (Path entry : List.copyOf(entries)) {
      entries.addAll(manifestClassPath(entry));
    }
    return entries;
  }

  /** A jar's {@code Class-Path} entries, which the JVM puts on the classpath after it. */
  private static List<Path> manifestClassPath(Path jar) {
    if (!jar.toString().endsWith(".jar") || !Files.isRegularFile(jar)) {
      return List.of();
    }
    try (JarFile file = new JarFile(jar.toFile())) {
      String value = file.getManifest() == null ? null
          : file.getManifest().getMainAttributes().getValue("Class-Path");
      if (value == null || value.isBlank()) {
        return List.of();
      }
      return Stream.of(value.strip().split("\\s+")).map(entry -> jar.resolveSibling(entry)).toList();
    } catch (IOException e) {
      return List.of();
    }
  }

  private static String name(String target, boolean jar) {
    String name = jar ? Path.of(target).getFileName().toString().replaceFirst("\\.jar$", "")
        : target.substring(target.lastIndexOf('.') + 1);
    return name.replaceAll("[^A-Za-z0-9_.]", "_");
  }

  private static String digest(String text) {
    try {
      byte[] hash = MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(hash, 0, 6);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  private static void deleteQuietly(Path path) {
    try {
      Files.deleteIfExists(path);
    } catch (IOException e) {
      // Left for the next publication or a clean of the directory.
    }
  }
}
