package io.evenkeel.launcher.local;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.TestExecutionExceptionHandler;

/**
 * When a test fails, what each stack it started printed and the end of every process log, so that a failure on
 * another machine explains itself. Registered with {@code @RegisterExtension}; runs before {@code @AfterEach} kills
 * the stack.
 */
final class StackFailureReport implements TestExecutionExceptionHandler {
  private static final int LOG_LINES = 60;

  private final List<StackProcess> stacks = new CopyOnWriteArrayList<>();

  /** Reports on {@code stack} if the test fails. */
  StackProcess watch(StackProcess stack) {
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

  /** The report, attached to the failure so that it is printed with it (without a stack trace of its own). */
  private static final class StackReport extends Exception {
    StackReport(String report) {
      super(report, null, false, false);
    }
  }
}
