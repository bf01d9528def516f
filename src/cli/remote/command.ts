import type { Command, CommandInput } from "../command";
import type { CommandResult } from "../output";
import type { RemoteApi } from "./api";

/** What a development command's `run` gets: the service's API, its arguments, and a way to print as it goes. */
export interface RemoteInput extends Pick<CommandInput, "values" | "args"> {
  /** The running service, with the key of `--api-key`. */
  api: RemoteApi;
  /** Prints a line now (a long-running command reports as it goes). */
  print(text: string): void;
  /** True with `--json`: print JSON lines instead of text. */
  json: boolean;
  /** Aborted on Ctrl-C (SIGINT) or SIGTERM: stop cleanly. */
  signal: AbortSignal;
}

/**
 * A command for local development that talks to a running service over HTTP with a test key
 * (`listen`, `trigger`), instead of building the router from a config module: the service may be
 * on another port or another machine.
 */
export interface RemoteCommand extends Omit<Command, "run"> {
  remote: true;
  run(input: RemoteInput): Promise<CommandResult>;
}

/** Any command of the CLI. */
export type AnyCommand = Command | RemoteCommand;

/** True for a command that talks to a running service. */
export const isRemote = (command: AnyCommand): command is RemoteCommand => "remote" in command && command.remote === true;
