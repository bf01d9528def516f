import type { Command } from "./command";
import { KEY_ENV, URL_ENV } from "./remote/api";
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

/** What a command's documentation needs: a development command talks to a service instead of loading a config. */
type CommandDoc = Pick<Command, "name" | "summary" | "usage" | "help"> & { remote?: true };

const REMOTE_FLAGS = [
  "Flags of listen and trigger:",
  `  --url <url>        where the payment router is mounted (default: $${URL_ENV}),`,
  "                     e.g. http://localhost:3000/payments; on this machine or another",
  `  --api-key <key>    a test API key, sk_test_... (default: $${KEY_ENV}); live keys are refused`,
  "  --json             print JSON (one object per line for listen)",
  "  -h, --help         show help",
].join("\n");

/** The synopsis of a command after the program name, with how it reaches the service. */
const synopsis = (command: CommandDoc): string =>
  command.remote ? `${command.usage} [--url URL] [--api-key KEY]` : `${command.usage} [--json] --config <module>`;

const EXIT_CODES = "Exit codes: 0 success (healthy or degraded), 1 failed (unhealthy, or the command failed), 2 usage error.";

/** The help of the whole CLI: every command and the global flags. */
export function programHelp(commands: readonly CommandDoc[]): string {
  const width = Math.max(...commands.map((command) => command.name.length));
  return [
    `Usage: ${PROGRAM} <command> [flags] --config <module>`,
    "",
    "Operates an express-crypto-pay service from the command line, with the options your app gives",
    "createPaymentRouter. Runs one command and exits; no background work runs.",
    "",
    "Commands:",
    ...commands.filter((command) => !command.remote).map((command) => `  ${command.name.padEnd(width)}  ${command.summary}`),
    "",
    "Local development (talk to a running service with a test key; no config module):",
    ...commands.filter((command) => command.remote).map((command) => `  ${command.name.padEnd(width)}  ${command.summary}`),
    "",
    GLOBAL_FLAGS,
    "",
    REMOTE_FLAGS,
    "",
    EXIT_CODES,
  ].join("\n");
}

/** The help of one command. */
export function commandHelp(command: CommandDoc): string {
  return [`Usage: ${PROGRAM} ${synopsis(command)}`, "", command.help, "", command.remote ? REMOTE_FLAGS : GLOBAL_FLAGS, "", EXIT_CODES].join("\n");
}

/** The short usage printed after a usage error: the command's synopsis, or the command list. */
export function shortUsage(commands: readonly CommandDoc[], command: CommandDoc | undefined): string {
  if (command) return `Usage: ${PROGRAM} ${synopsis(command)}\nMore: ${PROGRAM} ${command.name} --help`;
  return [`Usage: ${PROGRAM} <command> [flags] --config <module>`, "Commands:", ...commands.map((entry) => `  ${entry.usage}`), `More: ${PROGRAM} --help`].join(
    "\n",
  );
}
