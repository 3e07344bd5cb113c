package io.evenkeel.launcher;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The arrows docs/ARCHITECTURE.md draws between Evenkeel's modules and packages, checked on the classes: no package
 * cycle, and the layers it states. Maven already refuses cycles between modules and a class of a module that is not
 * a dependency; these rules say which dependencies may exist at all, so a new one in a pom cannot quietly undo them.
 */
class PackageGraphTest {
  private static JavaClasses classes;

  @BeforeAll
  static void importClasses() {
    classes = new ClassFileImporter()
        .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
        // Nor another module's test jar (the query service's test utilities are on this module's test classpath).
        .withImportOption(location -> !location.contains("-tests.jar"))
        .importPackages("io.evenkeel");
  }

  @Test
  void noPackageCycles() {
    // Each package is its own slice: "query" for io.evenkeel.query, "query.optimize" for its sub-package.
    slices().matching("io.evenkeel.(**)").should().beFreeOfCycles().check(classes);
  }

  @Test
  void aShardDoesNotKnowHowItsRowsWereRouted() {
    noClasses().that().resideInAPackage("io.evenkeel.shard..")
        .should().dependOnClassesThat().resideInAnyPackage("io.evenkeel.router..", "io.evenkeel.ingest..",
            "io.evenkeel.query..")
        .check(classes);
  }

  @Test
  void theClusterPlumbingKnowsNothingOfRouting() {
    noClasses().that().resideInAPackage("io.evenkeel.cluster..")
        .should().dependOnClassesThat().resideInAPackage("io.evenkeel.router..").check(classes);
  }

  @Test
  void theIngestJobAndTheQueryServiceReachShardServersOnlyOverGrpc() {
    noClasses().that().resideInAPackage("io.evenkeel.ingest..")
        .should().dependOnClassesThat().resideInAnyPackage("io.evenkeel.shard..", "io.evenkeel.query..")
        .check(classes);
    noClasses().that().resideInAPackage("io.evenkeel.query..")
        .should().dependOnClassesThat().resideInAnyPackage("io.evenkeel.shard..", "io.evenkeel.ingest..")
        .check(classes);
  }

  @Test
  void theLauncherStartsTheServersAsProcessesAndLoadsNoneOfTheirClasses() {
    noClasses().that().resideInAPackage("io.evenkeel.launcher..")
        .should().dependOnClassesThat().resideInAnyPackage("io.evenkeel.shard..", "io.evenkeel.ingest..",
            "io.evenkeel.query..", "io.evenkeel.cdc..")
        .check(classes);
  }

  @Test
  void theBaseModulesDependOnNoServer() {
    noClasses().that().resideInAnyPackage("io.evenkeel.schemas..", "io.evenkeel.expr..", "io.evenkeel.workload..",
            "io.evenkeel.cdc..")
        .should().dependOnClassesThat().resideInAnyPackage("io.evenkeel.router..", "io.evenkeel.cluster..",
            "io.evenkeel.shard..", "io.evenkeel.ingest..", "io.evenkeel.query..", "io.evenkeel.launcher..",
            "io.evenkeel.embedded..")
        .check(classes);
  }
}
