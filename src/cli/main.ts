#!/usr/bin/env node
/**
 * The `express-crypto-pay` command: `npx express-crypto-pay <command> --config <module>`.
 * See `express-crypto-pay --help` and docs/operations.md ("Operator CLI").
 */
import { runCli } from "./run";

/** Writes `text` and a newline, resolving once it is handed to the OS (a pipe is asynchronous). */
const write = (stream: NodeJS.WriteStream, text: string) => new Promise<void>((resolve) => stream.write(`${text}\n`, () => resolve()));

const pending: Promise<void>[] = [];
const code = await runCli(process.argv.slice(2), {
  out: (text) => void pending.push(write(process.stdout, text)),
  err: (text) => void pending.push(write(process.stderr, text)),
  // listen runs until Ctrl-C: the first interrupt stops it cleanly, a second one exits at once.
  onInterrupt: (stop) => {
    const first = () => {
      stop();
      process.once("SIGINT", () => process.exit(130));
    };
    process.once("SIGINT", first);
    process.once("SIGTERM", first);
    return () => {
      process.off("SIGINT", first);
      process.off("SIGTERM", first);
    };
  },
});
await Promise.all(pending);
// Exit now: a driver or HTTP agent the config opened may hold the event loop after close().
process.exit(code);
