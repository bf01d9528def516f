import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";

/** The repository root: the CLI runs from there, as `npx` would in a project. */
export const ROOT = fileURLToPath(new URL("../..", import.meta.url));

/** A config module of test/cli/configs/, by file name. */
export const config = (name: string): string => fileURLToPath(new URL(`./configs/${name}`, import.meta.url));

/** What one run of the CLI did. */
export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs the CLI from its source as a user runs the bin: a child process (`node --import tsx
 * src/cli/main.ts ...args`), with `env` added to the environment. Never rejects: a non-zero
 * exit is part of what the tests look at.
 */
export function cli(args: string[], env: Record<string, string> = {}): Promise<CliRun> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ["--import", "tsx", "src/cli/main.ts", ...args],
      { cwd: ROOT, env: { ...process.env, EXPRESS_CRYPTO_PAY_CONFIG: "", ...env }, timeout: 120_000, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === "number" ? error.code : -1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

/** The JSON a `--json` run printed on stdout. */
export function json<T = Record<string, any>>(run: CliRun): T {
  try {
    return JSON.parse(run.stdout) as T;
  } catch {
    throw new Error(`not JSON (exit ${run.code}): ${run.stdout}\nstderr: ${run.stderr}`);
  }
}
