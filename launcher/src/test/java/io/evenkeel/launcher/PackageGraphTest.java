package io.evenkeel.launcher;

import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
 * The arrows between Evenkeel's packages run one way: no package depends, through any chain, on a package that
 * depends on it. Maven already refuses cycles between modules; this catches them inside and across modules.
 */
class PackageGraphTest {
  @Test
  void noPackageCycles() {
    JavaClasses classes = new ClassFileImporter()
        .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
        // Nor another module's test jar (the query service's test utilities are on this module's test classpath).
        .withImportOption(location -> !location.contains("-tests.jar"))
        .importPackages("io.evenkeel");
    // Each package is its own slice: "query" for io.evenkeel.query, "query.optimize" for its sub-package.
    slices().matching("io.evenkeel.(**)").should().beFreeOfCycles().check(classes);
  }
}
