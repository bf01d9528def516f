import { parseArgs } from "node:util";
import { createPaymentService, type PaymentService } from "../index";
import type { Flags } from "./command";
import { COMMANDS } from "./commands/index";
import { loadOptions } from "./config";
import { UsageError } from "./errors";
import type { CommandResult } from "./output";
import { REMOTE_FLAGS, RemoteApi, remoteTarget } from "./remote/api";
import { type AnyCommand, isRemote, type RemoteCommand } from "./remote/command";
import { commandHelp, programHelp, shortUsage } from "./usage";

/** Where the CLI writes: stdout for results and help, stderr for errors and usage. */
export interface CliStreams {
  out(text: string): void;
  err(text: string): void;
  /**
   * Subscribes `stop` to the user's interrupt (Ctrl-C, SIGTERM) and returns the unsubscribe; a
   * long-running command (`listen`) stops cleanly on it. Without it, nothing interrupts a command.
   */
  onInterrupt?(stop: () => void): () => void;
}

const OUTPUT: Flags = { json: { type: "boolean" }, help: { type: "boolean", short: "h" } };
const GLOBAL: Flags = { config: { type: "string" }, ...OUTPUT };

/** Every flag of every command, for the first, lenient pass that only finds the command. */
const ANY_FLAG: Flags = Object.assign({}, GLOBAL, REMOTE_FLAGS, ...COMMANDS.map((command) => command.flags));

/** The command named by the first positionals (the longest match), and how many words it took. */
function findCommand(positionals: string[]): { command: AnyCommand; words: number } | null {
  for (const words of [2, 1]) {
    const name = positionals.slice(0, words).join(" ");
    const command = COMMANDS.find((entry) => entry.name === name);
    if (command && positionals.length >= words) return { command, words };
  }
  return null;
}

/** What a usage error names: an unknown command, or a group ("keys") without a known subcommand. */
function unknownCommand(positionals: string[]): UsageError {
  const group = COMMANDS.filter((command) => command.name.startsWith(`${positionals[0]} `));
  if (group.length > 0) {
    const sub = positionals[1] === undefined ? "needs a subcommand" : `has no subcommand ${JSON.stringify(positionals[1])}`;
    return new UsageError(`${positionals[0]} ${sub} (${group.map((command) => command.name.split(" ")[1]).join(", ")})`);
  }
  return new UsageError(`unknown command ${JSON.stringify(positionals[0])}`);
}

/**
 * Runs the CLI on `argv` (the arguments after the program): parses them with node:util's
 * parseArgs, loads the config module, builds the service (no HTTP) with its background loops and webhook
 * sender off, runs one command, closes the service, and resolves with the exit code: 0 success
 * (healthy or degraded), 1 unhealthy or failed, 2 usage or configuration error.
 */
export async function runCli(argv: string[], streams: CliStreams): Promise<number> {
  let command: AnyCommand | undefined;
  let json = false;
  try {
    const first = parseArgs({ args: argv, options: ANY_FLAG, allowPositionals: true, strict: false });
    json = first.values.json === true;
    const found = findCommand(first.positionals);
    command = found?.command;
    if (first.values.help === true) {
      streams.out(command ? commandHelp(command) : programHelp(COMMANDS));
      return 0;
    }
    if (first.positionals.length === 0) throw new UsageError("no command given");
    if (!found) throw unknownCommand(first.positionals);
    let parsed: ReturnType<typeof parseArgs<{ options: Flags; allowPositionals: true; strict: true; args: string[] }>>;
    try {
      const flags: Flags = isRemote(found.command) ? { ...OUTPUT, ...REMOTE_FLAGS } : GLOBAL;
      parsed = parseArgs({ args: argv, options: { ...flags, ...found.command.flags }, allowPositionals: true, strict: true });
    } catch (error) {
      throw new UsageError((error as Error).message, found.command.name);
    }
    const args = parsed.positionals.slice(found.words);
    const wanted = found.command.args;
    if (args.length !== wanted.length) {
      throw new UsageError(
        args.length < wanted.length ? `missing ${wanted.slice(args.length).join(" ")}` : `unexpected argument ${JSON.stringify(args[wanted.length])}`,
        found.command.name,
      );
    }
    const values = parsed.values as Record<string, string | boolean | undefined>;
    found.command.check?.({ values, args });
    if (isRemote(found.command)) return await runRemote(found.command, values, args, json, streams);
    const payments = await openService(typeof values.config === "string" ? values.config : undefined);
    let result: CommandResult;
    try {
      result = await found.command.run({ payments, values, args });
    } finally {
      await payments.close().catch(() => undefined);
    }
    streams.out(json ? JSON.stringify(result.json, jsonValue, 2) : result.text);
    return result.exitCode;
  } catch (error) {
    if (error instanceof UsageError) {
      const named = error.command === undefined ? command : COMMANDS.find((entry) => entry.name === error.command);
      streams.err(`error: ${error.message}\n\n${shortUsage(COMMANDS, named)}`);
      return 2;
    }
    const message = error instanceof Error ? error.message : String(error);
    if (json) streams.out(JSON.stringify({ error: { message, ...errorType(error) } }, null, 2));
    streams.err(`error: ${message}`);
    return 1;
  }
}

/**
 * Runs a development command against the service of --url with the key of --api-key: prints
 * its lines as it goes, and its result's text (if any) at the end.
 */
async function runRemote(command: RemoteCommand, values: Record<string, string | boolean | undefined>, args: string[], json: boolean, streams: CliStreams) {
  const api = new RemoteApi(remoteTarget(values, command.name));
  const interrupt = new AbortController();
  const unsubscribe = streams.onInterrupt?.(() => interrupt.abort());
  try {
    const result = await command.run({ api, values, args, json, print: streams.out, signal: interrupt.signal });
    if (json) streams.out(JSON.stringify(result.json, jsonValue, 2));
    else if (result.text) streams.out(result.text);
    return result.exitCode;
  } finally {
    unsubscribe?.();
  }
}

/** The service of the config, without HTTP and with no background work: the service's own processes do that. */
async function openService(config: string | undefined): Promise<PaymentService> {
  const options = await loadOptions(config);
  try {
    return createPaymentService({
      ...options,
      backgroundIntervalMs: false,
      // No webhook is sent from here: a redelivery is queued for the running service's sender.
      webhooks: { ...options.webhooks, intervalMs: false },
    });
  } catch (error) {
    throw new UsageError(`the configuration was refused: ${(error as Error).message}`);
  }
}

/** The catalogue type of a PaymentError, for --json consumers. */
function errorType(error: unknown): { type?: string } {
  const type = (error as { type?: unknown } | null)?.type;
  return typeof type === "string" ? { type } : {};
}

/** JSON of results: bigint amounts as decimal strings. */
function jsonValue(_key: string, value: unknown): unknown {
  return typeof value === "bigint" ? value.toString() : value;
}
