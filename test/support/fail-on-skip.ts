import type { Reporter, TestCase, TestModule } from "vitest/node";

/*
 * CI runs every test: a test skipped there is a machine that lacks something (PostgreSQL,
 * Chromium) or a `.skip`/`.only` left in, and either hides a failure. With FAIL_ON_SKIP=1
 * (.ci/run exports it) vitest.config.ts adds this reporter, which fails the run when any test
 * was skipped and lists them with their reasons. Without it, skips only say why
 * (test/support/skips.ts), so that a developer's machine without a PostgreSQL server still runs
 * the rest.
 */

/** What vitest.config.ts sets as `reporters`: the default one, plus the skip check with FAIL_ON_SKIP=1. */
export function reportersFor(env: NodeJS.ProcessEnv): Array<"default" | Reporter> | undefined {
  if (env.FAIL_ON_SKIP === undefined || env.FAIL_ON_SKIP === "" || env.FAIL_ON_SKIP === "0") return undefined;
  if (env.FAIL_ON_SKIP !== "1") throw new Error(`FAIL_ON_SKIP must be 1 (or unset), got ${env.FAIL_ON_SKIP}`);
  return ["default", new FailOnSkip()];
}

/** Fails the run (exit code 1) when a test was skipped, naming each file's skips and why. */
export class FailOnSkip implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const lines: string[] = [];
    let count = 0;
    for (const module of testModules) {
      const skipped = [...module.children.allTests("skipped")];
      if (skipped.length === 0) continue;
      count += skipped.length;
      const reasons = new Map<string, number>();
      for (const test of skipped) {
        const reason = reasonOf(test);
        reasons.set(reason, (reasons.get(reason) ?? 0) + 1);
      }
      for (const [reason, tests] of reasons) lines.push(`  ${module.relativeModuleId}: ${tests} skipped: ${reason}`);
    }
    if (count === 0) return;
    console.error(`\nFAIL_ON_SKIP=1: ${count} test(s) skipped, and this run must run them all:\n${lines.join("\n")}\n`);
    process.exitCode = 1;
  }
}

/**
 * Why a test was skipped: the reason in a skipped suite's title (test/support/skips.ts), the
 * note of a `ctx.skip(note)`, or how it came to be skipped without one.
 */
function reasonOf(test: TestCase): string {
  for (let parent = test.parent; parent.type === "suite"; parent = parent.parent) {
    const said = / \(skipped: (.+)\)$/.exec(parent.name);
    if (said) return said[1]!;
  }
  const result = test.result();
  if (result.state === "skipped" && result.note) return result.note;
  if (test.options.mode === "todo") return "marked .todo";
  if (test.options.mode === "skip") return "marked .skip (or another test of the file .only), with no reason given";
  return "not run: a hook of its suite failed, or a filter (-t) left it out";
}
