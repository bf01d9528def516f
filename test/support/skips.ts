import { describe, type SuiteFactory, type SuiteOptions } from "vitest";

/*
 * Every test that may not run on a machine goes through `describeIf`, so that a skip is never
 * silent: the skipped suite's title says why, the reason is printed in the run's output, and a
 * run with FAIL_ON_SKIP=1 (CI: .ci/run) fails on it (test/support/fail-on-skip.ts).
 */

/** Why the PostgreSQL server tests skip. */
export const NO_DATABASE_URL = "DATABASE_URL is not set: these tests need a PostgreSQL server (see CONTRIBUTING.md, Running the tests)";

/** Why the browser tests skip. */
export const NO_CHROMIUM = "Chromium is not installed at /usr/bin/chromium (apt-get install chromium; see CONTRIBUTING.md, Running the tests)";

/** `describe`'s two forms: a title and the suite, with or without options between them. */
export interface ConditionalDescribe {
  (name: string, factory: SuiteFactory): void;
  (name: string, options: SuiteOptions, factory: SuiteFactory): void;
}

/** The reasons this test file printed already: once per file and reason is enough. */
const printed = new Set<string>();

/**
 * `describe` when `condition` holds; otherwise the suite is registered skipped, titled
 * "<name> (skipped: <reason>)", and `reason` is printed once for the file (the default reporter
 * shows it under the file's name, passed or not).
 */
export function describeIf(condition: unknown, reason: string): ConditionalDescribe {
  if (condition) return describe;
  if (!printed.has(reason)) {
    printed.add(reason);
    console.warn(`Skipped: ${reason}`);
  }
  return (name: string, second: SuiteOptions | SuiteFactory, factory?: SuiteFactory) => {
    const title = `${name} (skipped: ${reason})`;
    if (typeof second === "function") describe.skip(title, second);
    else describe.skip(title, second, factory);
  };
}
