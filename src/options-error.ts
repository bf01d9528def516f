import type { z } from "zod";

/**
 * The start-up error for options that failed their zod schema: `${caller}: ` and every problem,
 * "; "-separated, each naming the option at fault ("rpcUrl must be an http(s) URL...") or the
 * unknown ones ("unknown option(s) rpcURL"). Shared by the router and the adapters so that a
 * misconfiguration reads the same wherever it is made; it lives at the top of src/ because both
 * src/http and src/adapters use it.
 *
 * `separator` goes between an option's path and its message: the adapters read "rpcUrl must
 * be...", the router "mountPath: must be..." (their messages are written for those forms, and
 * tests and users match on them, so each keeps its own). Only paths and the schema's own
 * messages are written, never the input: a hot wallet key or an RPC URL with credentials must
 * not reach a log.
 */
export function optionsError(caller: string, error: z.ZodError, separator: " " | ": " = " "): TypeError {
  const problems = error.issues.map((issue) =>
    issue.code === "unrecognized_keys"
      ? `unknown option(s) ${issue.keys.join(", ")}`
      : `${issue.path.map(String).join(".") || "options"}${separator}${issue.message}`,
  );
  return new TypeError(`${caller}: ${problems.join("; ")}`);
}
