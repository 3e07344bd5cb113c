package io.evenkeel.launcher.local;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.extension.AfterTestExecutionCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.TestExecutionExceptionHandler;

/**
 * The {@code bin/evenkeel} processes a test starts. When the test fails, what each printed and the end of every
 * process log, so that a failure on another machine explains itself; once the test has run, each is killed with
 * everything it started. Registered with {@code @RegisterExtension}: the report comes before the kill, and the kill
 * before the test's {@code @AfterEach}.
 */
final class StartedStacks implements TestExecutionExceptionHandler, AfterTestExecutionCallback {
  private static final int LOG_LINES = 60;

  private final List<StackProcess> stacks = new CopyOnWriteArrayList<>();

  /** Starts {@code bin/evenkeel args...} in {@code dir}: reported if the test fails, killed once it has run. */
  StackProcess start(Path dir, String... args) throws IOException {
    StackProcess stack = StackProcess.start(dir, args);
    stacks.add(stack);
    return stack;
  }

  @Override
  public void handleTestExecutionException(ExtensionContext context, Throwable failure) throws Throwable {
    for (StackProcess stack : stacks) {
      failure.addSuppressed(new StackReport(stack.report(LOG_LINES)));
    }
    throw failure;
  }

  @Override
  public void afterTestExecution(ExtensionContext context) throws InterruptedException {
    for (StackProcess stack : stacks) {
      stack.close();
    }
  }

  /** The report, attached to the failure so that it is printed with it (without a stack trace of its own). */
  private static final class StackReport extends Exception {
    StackReport(String report) {
      super(report, null, false, false);
    }
  }
}
