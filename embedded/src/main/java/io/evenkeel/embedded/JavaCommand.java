package io.evenkeel.embedded;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The command line of a child JVM: this JVM's {@code java}, heap, flags, classpath or jar, main class, arguments.
 * Every such JVM exits on an {@link OutOfMemoryError}: one that ran out of heap could otherwise stay half alive,
 * holding its ports and its ZooKeeper session, so that neither its supervisor nor the cluster replaces it.
 *
 * <p>The options of the environment variable {@value #ENVIRONMENT_OPTIONS} (split at white space) come last, so they
 * win over the command's own: GC logs, a JFR recording or another heap for every process of a local stack, or a
 * JIT that compiles less for the short-lived processes of a test run.
 */
public final class JavaCommand {
  public static final String EXIT_ON_OUT_OF_MEMORY = "-XX:+ExitOnOutOfMemoryError";
  public static final String ENVIRONMENT_OPTIONS = "EVENKEEL_JVM_OPTIONS";
  /** Tiered compilation stops at C1: code compiled at once, cheaply, and less optimized. */
  public static final String QUICK_COMPILER = "-XX:TieredStopAtLevel=1";

  private final List<String> jvmOptions = new ArrayList<>(List.of(EXIT_ON_OUT_OF_MEMORY));
  private String classpath = System.getProperty("java.class.path");
  private final String target;
  private final boolean jar;
  private final List<String> args = new ArrayList<>();
  private Path classData = ClassDataArchive.configuredDirectory();

  private JavaCommand(String target, boolean jar) {
    this.target = target;
    this.jar = jar;
  }

  /** {@code java -cp <this JVM's classpath> mainClass}. */
  public static JavaCommand mainClass(String mainClass) {
    return new JavaCommand(mainClass, false);
  }

  /** {@code java -jar jar}. */
  public static JavaCommand jar(Path jar) {
    return new JavaCommand(jar.toString(), true);
  }

  public JavaCommand classpath(String value) {
    if (jar) {
      throw new IllegalStateException("a -jar command takes its classpath from the jar's manifest");
    }
    this.classpath = value;
    return this;
  }

  /**
   * Keeps the jars of the classpath and drops its directories: for a server that runs from library jars alone
   * (Kafka, ZooKeeper), so that a test's {@code target/classes} do not keep it from a class-data archive.
   */
  public JavaCommand jarsOnly() {
    List<String> jars = new ArrayList<>();
    for (String element : classpath.split(File.pathSeparator)) {
      if (!element.isEmpty() && !Files.isDirectory(Path.of(element))) {
        jars.add(element);
      }
    }
    return classpath(String.join(File.pathSeparator, jars));
  }

  public JavaCommand heap(String xmx) {
    jvmOptions.add("-Xmx" + xmx);
    return this;
  }

  /**
   * A server's heap: {@code size} from the start and touched then, as OpenSearch's distribution starts its nodes. A
   * heap that starts small grows by collections: under load, young collections of a 44 MB heap growing to 512 MB
   * paused a shard server for up to 467 ms.
   */
  public JavaCommand serverHeap(String size) {
    jvmOptions.addAll(List.of("-Xms" + size, "-Xmx" + size, "-XX:+AlwaysPreTouch"));
    return this;
  }

  /**
   * Compiles with C1 alone ({@value #QUICK_COMPILER}), for a process that shares a small machine with the other
   * processes of a stack: on 2 cores, the C2 compiler threads of a local stack's JVMs took more CPU during a load and
   * the queries after it than the processes' own work.
   */
  public JavaCommand quickCompiler() {
    jvmOptions.add(QUICK_COMPILER);
    return this;
  }

  public JavaCommand jvmOptions(List<String> options) {
    jvmOptions.addAll(options);
    return this;
  }

  public JavaCommand jvmOption(String option) {
    jvmOptions.add(option);
    return this;
  }

  public JavaCommand args(String... more) {
    args.addAll(List.of(more));
    return this;
  }

  public JavaCommand args(List<String> more) {
    args.addAll(more);
    return this;
  }

  /**
   * Where the class-data archives of child JVMs live ({@link ClassDataArchive}); null for none. The default is the
   * directory {@value ClassDataArchive#DIRECTORY_VARIABLE} names.
   */
  public JavaCommand classData(Path directory) {
    this.classData = directory;
    return this;
  }

  /**
   * Starts the command as a supervised child, logging to {@code log}, with its class-data archive if there is one.
   */
  public ChildProcess start(String name, Path log) throws IOException {
    // A -jar command's classpath is its jar's (this JVM's does not name its archive).
    ClassDataArchive archive = ClassDataArchive.of(classData, target, jar, jar ? "" : classpath);
    ChildProcess child = ChildProcess.start(name, toList(archive.jvmOptions()), log);
    child.whenExited(archive::publish);
    return child;
  }

  public List<String> toList() {
    return toList(List.of());
  }

  private List<String> toList(List<String> archiveOptions) {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(jvmOptions);
    command.addAll(archiveOptions);
    command.addAll(environmentOptions());
    if (jar) {
      command.add("-jar");
    } else {
      command.add("-cp");
      command.add(classpath);
    }
    command.add(target);
    command.addAll(args);
    return command;
  }

  /** The options of {@value #ENVIRONMENT_OPTIONS}; none when it is unset or blank. */
  static List<String> environmentOptions() {
    String options = System.getenv(ENVIRONMENT_OPTIONS);
    return options == null || options.isBlank() ? List.of() : List.of(options.strip().split("\\s+"));
  }
}
