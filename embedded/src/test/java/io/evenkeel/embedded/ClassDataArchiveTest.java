package io.evenkeel.embedded;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Child JVMs started through {@link JavaCommand} with a class-data directory: the first clean exit leaves an archive,
 * the next start loads its classes from it; a child killed while it runs leaves none and no claim; a rebuilt jar gets
 * a new archive and the old one goes; a classpath with a directory gets none; the child's output carries no CDS
 * messages either way.
 */
class ClassDataArchiveTest {
  @TempDir Path dir;

  /** The child: prints a line and exits, or waits to be killed. */
  public static final class Child {
    public static void main(String[] args) throws InterruptedException {
      System.out.println("child ran");
      if (args.length > 0) {
        Thread.sleep(60_000);
      }
    }
  }

  @Test
  void theFirstCleanExitWritesTheArchiveAndTheNextStartLoadsFromIt() throws Exception {
    Path archives = dir.resolve("class-data");
    Path first = dir.resolve("first.log");
    assertThat(run(archives, first)).isZero();
    List<Path> written = archives(archives);
    assertThat(written.get(0).getFileName().toString()).startsWith("ClassDataArchiveTest_Child-").endsWith(".jsa");
    assertThat(Files.readString(first)).contains("child ran").doesNotContain("[cds").doesNotContain("[warning]");
    assertThat(written).hasSize(1);

    Path classes = dir.resolve("classes.log");
    Path second = dir.resolve("second.log");
    assertThat(run(archives, second, "-Xlog:class+load=info:file=" + classes)).isZero();
    assertThat(Files.readString(second)).contains("child ran").doesNotContain("[cds").doesNotContain("[warning]");
    assertThat(Files.readAllLines(classes)).anySatisfy(line -> assertThat(line)
        .contains(Child.class.getName()).contains("shared objects file (top)"));
  }

  @Test
  void aChildKilledBeforeItExitsLeavesNoArchiveAndNoClaim() throws Exception {
    Path archives = dir.resolve("class-data");
    ChildProcess child = command(archives, "wait").start("child", dir.resolve("child.log"));
    child.awaitReady(Duration.ofSeconds(30), () -> Files.readString(child.log()).contains("child ran"));
    child.signal("KILL");
    assertThat(child.onExit().get(30, TimeUnit.SECONDS)).isEqualTo(128 + 9);
    assertThat(listed(archives)).isEmpty();
    // The claim is released: the next start writes the archive.
    assertThat(run(archives, dir.resolve("after.log"))).isZero();
    assertThat(archives(archives)).hasSize(1);
  }

  @Test
  void aRebuiltJarGetsANewArchiveAndTheOldOneIsDeleted() throws Exception {
    Path archives = dir.resolve("class-data");
    Path jar = dir.resolve("extra.jar");
    Files.write(jar, new byte[] {'P', 'K', 5, 6, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0});
    String classpath = dir.resolve("child.jar") + ":" + jar;
    JavaCommand first = command(archives);
    assertThat(run(first.classpath(classpath), dir.resolve("a.log"))).isZero();
    Path before = archives(archives).get(0);

    Files.setLastModifiedTime(jar, FileTime.fromMillis(System.currentTimeMillis() + 5_000));
    assertThat(run(command(archives).classpath(classpath), dir.resolve("b.log"))).isZero();
    assertThat(archives(archives)).hasSize(1).doesNotContain(before);
  }

  /** The child from a jar of its own: the JVM archives classes from jars only. */
  private JavaCommand command(Path archives, String... args) throws IOException {
    Path jar = dir.resolve("child.jar");
    if (!Files.exists(jar)) {
      String entry = Child.class.getName().replace('.', '/') + ".class";
      try (InputStream in = Child.class.getClassLoader().getResourceAsStream(entry);
          JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar))) {
        out.putNextEntry(new JarEntry(entry));
        in.transferTo(out);
      }
    }
    return JavaCommand.mainClass(Child.class.getName()).classpath(jar.toString()).classData(archives).heap("64m")
        .args(args);
  }

  @Test
  void aClasspathWithADirectoryGetsNoArchiveAndTheChildRunsAsBefore() throws Exception {
    Path archives = dir.resolve("class-data");
    JavaCommand fromDirectory = command(archives).classpath(System.getProperty("java.class.path"));
    assertThat(run(fromDirectory, dir.resolve("directory.log"))).isZero();
    assertThat(listed(archives)).isEmpty();
  }

  private int run(Path archives, Path log, String... jvmOptions) throws Exception {
    return run(command(archives).jvmOptions(List.of(jvmOptions)), log);
  }

  /** Runs the child to its exit; fails, with its log, unless it exits 0. */
  private static int run(JavaCommand command, Path log) throws Exception {
    int code = command.start("child", log).onExit().get(60, TimeUnit.SECONDS);
    assertThat(code).as("the child's exit code; its log:%n%s", Files.readString(log)).isZero();
    return code;
  }

  /** What the directory holds once the child's exit is seen: archives only, no claim or temporary file. */
  private static List<Path> archives(Path archives) throws IOException {
    List<Path> found = listed(archives);
    assertThat(found).allSatisfy(p -> assertThat(p.toString()).endsWith(".jsa"));
    return found;
  }

  private static List<Path> listed(Path archives) throws IOException {
    if (!Files.isDirectory(archives)) {
      return List.of();
    }
    try (Stream<Path> files = Files.list(archives)) {
      return files.sorted().toList();
    }
  }
}
