import { execFile } from "node:child_process";
import { beforeAll, describe, expect, it } from "vitest";
import { FailOnSkip, reportersFor } from "./fail-on-skip";

/** What a child vitest run of one fixture of test/fixtures/skips/ gave. */
interface ChildRun {
  code: number;
  output: string;
}

/**
 * Runs vitest in a child process on one fixture file, with the project's own config
 * (test/fixtures/skips.vitest.config.ts reuses vitest.config.ts) and FAIL_ON_SKIP as given.
 */
function runFixture(file: string, failOnSkip: boolean): Promise<ChildRun> {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: "1" };
  delete env.FORCE_COLOR;
  if (failOnSkip) env.FAIL_ON_SKIP = "1";
  else delete env.FAIL_ON_SKIP;
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ["node_modules/vitest/vitest.mjs", "run", "--config", "test/fixtures/skips.vitest.config.ts", `test/fixtures/skips/${file}`],
      { env, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, output: `${stdout}\n${stderr}` }),
    );
  });
}

let skipped: ChildRun;
let skippedAllowed: ChildRun;
let noted: ChildRun;
let marked: ChildRun;
let none: ChildRun;

beforeAll(async () => {
  [skipped, skippedAllowed, noted, marked, none] = await Promise.all([
    runFixture("skipped.ts", true),
    runFixture("skipped.ts", false),
    runFixture("noted.ts", true),
    runFixture("marked.ts", true),
    runFixture("none-skipped.ts", true),
  ]);
}, 60_000);

describe("a skipped test says why, and fails a run with FAIL_ON_SKIP=1", () => {
  it("fails the run when a suite skipped for want of something, naming the file, the count and the reason", () => {
    expect(skipped.code, skipped.output).toBe(1);
    expect(skipped.output).toContain("FAIL_ON_SKIP=1: 1 test(s) skipped");
    expect(skipped.output).toContain("test/fixtures/skips/skipped.ts: 1 skipped: the fixture's machine lacks what it needs");
  });

  it("lets the same run pass without FAIL_ON_SKIP, the reason printed in its output", () => {
    expect(skippedAllowed.code, skippedAllowed.output).toBe(0);
    expect(skippedAllowed.output).toContain("Skipped: the fixture's machine lacks what it needs");
    expect(skippedAllowed.output).toMatch(/1 passed \| 1 skipped/);
    expect(skippedAllowed.output).not.toContain("FAIL_ON_SKIP=1");
  });

  it("fails the run on a test that skipped itself at run time, with its note as the reason", () => {
    expect(noted.code, noted.output).toBe(1);
    expect(noted.output).toContain("test/fixtures/skips/noted.ts: 1 skipped: the fixture decided at run time");
  });

  it("fails the run on a test left marked .skip, saying it gave no reason", () => {
    expect(marked.code, marked.output).toBe(1);
    expect(marked.output).toContain("test/fixtures/skips/marked.ts: 1 skipped: marked .skip (or another test of the file .only), with no reason given");
  });

  it("passes a run whose every test ran", () => {
    expect(none.code, none.output).toBe(0);
    expect(none.output).not.toContain("Skipped:");
  });
});

describe("FAIL_ON_SKIP", () => {
  it("adds the skip check to the default reporter when 1, and nothing when unset, empty or 0", () => {
    const reporters = reportersFor({ FAIL_ON_SKIP: "1" });
    expect(reporters?.[0]).toBe("default");
    expect(reporters?.[1]).toBeInstanceOf(FailOnSkip);
    for (const value of [undefined, "", "0"]) expect(reportersFor({ FAIL_ON_SKIP: value })).toBeUndefined();
  });

  it("refuses another value rather than guess what it means", () => {
    expect(() => reportersFor({ FAIL_ON_SKIP: "true" })).toThrow("FAIL_ON_SKIP must be 1 (or unset), got true");
  });
});
