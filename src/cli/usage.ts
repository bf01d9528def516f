import type { Command } from "./command";
import { CONFIG_ENV } from "./config";

/** The program's name, as users type it. */
export const PROGRAM = "express-crypto-pay";

const GLOBAL_FLAGS = [
  "Global flags:",
  `  --config <module>  the configuration module (default: $${CONFIG_ENV}); it exports the`,
  "                     createPaymentRouter options as its default export or as `options`,",
  "                     an object or a (sync or async) function returning one",
  "  --json             print the result as JSON on stdout",
  "  -h, --help         show help (of a command too: express-crypto-pay keys issue --help)",
].join("\n");

const EXIT_CODES = "Exit codes: 0 success (healthy or degraded), 1 failed (unhealthy, or the command failed), 2 usage error.";

/** The help of the whole CLI: every command and the global flags. */
export function programHelp(commands: readonly Command[]): string {
  const width = Math.max(...commands.map((command) => command.name.length));
  return [
    `Usage: ${PROGRAM} <command> [flags] --config <module>`,
    "",
    "Operates an express-crypto-pay service from the command line, with the options your app gives",
    "createPaymentRouter. Runs one command and exits; no background work runs.",
    "",
    "Commands:",
    ...commands.map((command) => `  ${command.name.padEnd(width)}  ${command.summary}`),
    "",
    GLOBAL_FLAGS,
    "",
    EXIT_CODES,
  ].join("\n");
}

/** The help of one command. */
export function commandHelp(command: Command): string {
  return [`Usage: ${PROGRAM} ${command.usage} [--json] --config <module>`, "", command.help, "", GLOBAL_FLAGS, "", EXIT_CODES].join("\n");
}

/** The short usage printed after a usage error: the command's synopsis, or the command list. */
export function shortUsage(commands: readonly Command[], command: Command | undefined): string {
  if (command) return `Usage: ${PROGRAM} ${command.usage} [--json] --config <module>\nMore: ${PROGRAM} ${command.name} --help`;
  return [`Usage: ${PROGRAM} <command> [flags] --config <module>`, "Commands:", ...commands.map((entry) => `  ${entry.usage}`), `More: ${PROGRAM} --help`].join(
    "\n",
  );
}
