import type { ParseArgsConfig } from "node:util";
import type { PaymentService } from "../index";
import type { CommandResult } from "./output";

/** The flags of a command, as node:util parseArgs takes them. */
export type Flags = NonNullable<ParseArgsConfig["options"]>;

/** What a command's `run` gets: the service built from the config, and its parsed arguments. */
export interface CommandInput {
  payments: PaymentService;
  /** Flag values by name (strings and booleans, as parseArgs gives them). */
  values: Record<string, string | boolean | undefined>;
  /** The arguments after the command's words, in order. */
  args: string[];
}

/** One command of the CLI ("health", "keys issue"). */
export interface Command {
  /** Its words, as typed: "keys issue". */
  name: string;
  /** One line for the command list. */
  summary: string;
  /** Its synopsis after the program name: "keys issue --merchant ID [--mode test|live]". */
  usage: string;
  /** Lines of help below the synopsis: what it does, its flags, what it prints. */
  help: string;
  /** Its own flags (the global ones are added). */
  flags: Flags;
  /** Names of its positional arguments, each required. */
  args: string[];
  /**
   * Checks the flags before the config is loaded, so a typo costs no database connection:
   * throws a UsageError (exit 2). Optional; `run` parses them the same way.
   */
  check?(input: Pick<CommandInput, "values" | "args">): void;
  /** Runs it; throwing a UsageError exits 2, any other error 1. */
  run(input: CommandInput): Promise<CommandResult>;
}

/** A flag's string value, or undefined. */
export function stringFlag(values: CommandInput["values"], name: string): string | undefined {
  const value = values[name];
  return typeof value === "string" ? value : undefined;
}
