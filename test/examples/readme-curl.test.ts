import { spawnSync } from "node:child_process";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startExample, type ExampleProcess } from "./example-process";

/**
 * The README is true when pasted: every ```sh / ```bash block that calls `curl` in README.md (the
 * set-up walkthrough) and then docs/api-v1.md (the /v1 API by example) runs, in that order,
 * through a real bash and a real curl against `npm start`'s program (the example server, fresh
 * data directory), as one terminal session would.
 *
 * Conventions the README follows (and says in its walkthrough):
 * - `localhost:3000` is the example server (here on a free port).
 * - A line `NAME=<something>...` (a value with `...` in it) is for the reader to fill in.
 *   `KEY=sk_test_...` is the test key `npm start` printed; any other such line names, in double
 *   quotes in its comment, the field of the answer just above to copy (`INVOICE=inv_...   # the
 *   "id" of the invoice above`), and the test copies that top-level field of the previous curl's
 *   answer.
 * - Every curl must answer 2xx, unless its command carries a comment `# -> ...`: a three-digit
 *   status there is the status it must answer instead, and each `"name":value` there must appear
 *   in its answer as written (`# -> 400 "error":40003`, `# -> "status":"PAID"`).
 * Any other line of such a block runs as written (it may set shell variables used later, as the
 * reader's shell would keep them).
 */

/** The walkthroughs, in the order a reader follows them: the README's, then the /v1 API's. */
const WALKTHROUGHS = ["README.md", "docs/api-v1.md"];

/** One command of a walkthrough: its text (continuation lines joined), its file and where it starts. */
interface Command {
  text: string;
  line: number;
  file: string;
}

/** The commands of every shell block of a Markdown file that calls curl, in order. */
function curlBlocks(readme: string, file: string): Command[][] {
  const blocks: Command[][] = [];
  const lines = readme.split("\n");
  for (let index = 0; index < lines.length; index++) {
    if (!/^```(sh|bash|shell)\s*$/.test(lines[index]!)) continue;
    const commands: Command[] = [];
    let current: Command | null = null;
    for (index++; index < lines.length && !lines[index]!.startsWith("```"); index++) {
      const text = lines[index]!;
      if (current) current.text += `\n${text}`;
      else current = { text, line: index + 1, file };
      if (!text.endsWith("\\")) {
        if (current.text.trim() !== "" && !current.text.trim().startsWith("#")) commands.push(current);
        current = null;
      }
    }
    if (commands.some((command) => /(^|[\s;|&(])curl\s/.test(command.text))) blocks.push(commands);
  }
  return blocks;
}

/** What a command's `# -> ...` comment expects: a status (default: any 2xx) and fragments of the answer. */
function expectation(text: string): { status: number | null; fragments: string[] } {
  const comment = /\s#\s*->\s*(.*)$/m.exec(text)?.[1] ?? "";
  const status = /(?:^|\s)(\d{3})(?=\s|$)/.exec(comment)?.[1];
  const fragments = [...comment.matchAll(/"[^"]+":\s*(?:"[^"]*"|[^\s,}]+)/g)].map((match) => match[0].replace(/":\s+/, '":'));
  return { status: status ? Number(status) : null, fragments };
}

const PLACEHOLDER = /^([A-Z][A-Z0-9_]*)=(\S*\.\.\.\S*)(?:\s+#\s*(.*))?$/;

/** Single-quoted for bash. */
const quote = (value: string) => `'${value.replace(/'/g, `'\\''`)}'`;

/** Every curl call is recorded (status and body, in call order) so the test can judge each one. */
const WRAPPER = `
set -u -o pipefail
curl() {
  local n code
  n=$(find "$ECP_OUT" -name '*.body' | wc -l)
  code=$(command curl "$@" --output "$ECP_OUT/$n.body" --write-out '%{http_code}') || return
  printf '%s' "$code" > "$ECP_OUT/$n.status"
  cat "$ECP_OUT/$n.body"
}
`;

interface CallResult {
  status: number;
  body: string;
}

describe("README curl examples", { timeout: 180_000 }, () => {
  let server: ExampleProcess;
  let dataDir: string;
  let out: string;
  let key: string;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), "ecp-readme-"));
    out = await mkdtemp(join(tmpdir(), "ecp-readme-out-"));
    server = await startExample({ DATA_DIR: dataDir }, "sk_test_ReadmeWalkthroughKey0000000001");
    // The key as npm start prints it, which is where the README tells the reader to take it from.
    key = /test API key: (sk_test_\S+)/.exec(server.lines.join("\n"))![1]!;
  }, 120_000);

  afterAll(async () => {
    await server?.stop();
    await rm(dataDir, { recursive: true, force: true });
    await rm(out, { recursive: true, force: true });
  });

  /** Runs one command after everything that set up the shell before it; returns its curl calls. */
  async function run(prelude: string[], command: string): Promise<{ calls: CallResult[]; exit: number | null; stderr: string }> {
    for (const file of await readdir(out)) await rm(join(out, file));
    const script = [WRAPPER, ...prelude, command].join("\n");
    const result = spawnSync("bash", ["--noprofile", "--norc", "-c", script], {
      env: { ...process.env, ECP_OUT: out },
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
      timeout: 30_000,
    });
    const files = await readdir(out);
    const calls: CallResult[] = [];
    for (let n = 0; files.includes(`${n}.body`); n++) {
      const status = files.includes(`${n}.status`) ? Number(await readFile(join(out, `${n}.status`), "utf8")) : 0;
      calls.push({ status, body: await readFile(join(out, `${n}.body`), "utf8") });
    }
    return { calls, exit: result.status, stderr: result.stderr };
  }

  it("runs every curl of the README, in order, and each answers as the README says", async () => {
    expect(spawnSync("curl", ["--version"]).status, "curl must be installed to run the README's examples").toBe(0);
    const blocks: Command[][] = [];
    for (const file of WALKTHROUGHS) blocks.push(...curlBlocks(await readFile(file, "utf8"), file));
    expect(blocks.length).toBeGreaterThanOrEqual(2);
    const host = new URL(server.base).host;
    const prelude: string[] = [];
    let last: CallResult | null = null;
    let curls = 0;

    for (const block of blocks) {
      for (const { text: written, line, file } of block) {
        const where = `${file}:${line}: ${written}`;
        const text = written.replace(/localhost:3000/g, host);
        const placeholder = PLACEHOLDER.exec(text.trim());
        if (placeholder) {
          const [, name, , comment = ""] = placeholder;
          let value: string;
          if (name === "KEY") {
            value = key;
          } else {
            const field = /"([^"]+)"/.exec(comment)?.[1];
            expect(field, `${where}\nname the field to copy in double quotes in the comment`).toBeDefined();
            expect(last, `${where}\nthere is no answer above to copy "${field}" from`).not.toBeNull();
            const answer = JSON.parse(last!.body) as Record<string, unknown>;
            expect(typeof answer[field!], `${where}\nthe answer above has no "${field}": ${last!.body}`).toBe("string");
            value = answer[field!] as string;
          }
          prelude.push(`${name}=${quote(value)}`);
          continue;
        }
        const { calls, exit, stderr } = await run(prelude, text);
        if (!/(^|[\s;|&(])curl\s/.test(text)) {
          expect(exit, `${where}\nfailed: ${stderr}`).toBe(0);
          prelude.push(text);
          continue;
        }
        expect(calls.length, `${where}\ncurl did not run to the end (exit ${exit}): ${stderr}`).toBeGreaterThan(0);
        const expected = expectation(text);
        for (const call of calls) {
          const shown = `${where}\nanswered ${call.status}: ${call.body}`;
          if (expected.status === null) expect(call.status >= 200 && call.status < 300, shown).toBe(true);
          else expect(call.status, shown).toBe(expected.status);
          for (const fragment of expected.fragments) expect(call.body, shown).toContain(fragment);
        }
        expect(exit, `${where}\nexited ${exit}: ${stderr}`).toBe(0);
        last = calls.at(-1)!;
        curls += calls.length;
      }
    }
    expect(curls).toBeGreaterThanOrEqual(15);
  });
});
