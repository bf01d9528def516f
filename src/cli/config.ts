import { stat } from "node:fs/promises";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { PaymentRouterOptions } from "../index";
import { UsageError } from "./errors";

/** The environment variable naming the config module when `--config` is not given. */
export const CONFIG_ENV = "EXPRESS_CRYPTO_PAY_CONFIG";

/**
 * Loads the host's configuration module (given by `--config`, else `EXPRESS_CRYPTO_PAY_CONFIG`)
 * and returns the `createPaymentRouter` options it exports: its default export, or else its
 * named export `options`; either may be the options object or a function (sync or async)
 * returning it. A .js/.mjs/.cjs file loads as it is; a .ts one needs a loader in Node
 * (`node --import tsx`).
 */
export async function loadOptions(path: string | undefined): Promise<PaymentRouterOptions> {
  const given = path ?? process.env[CONFIG_ENV];
  if (!given) throw new UsageError(`no configuration: pass --config <module> or set ${CONFIG_ENV}`);
  const file = resolve(process.cwd(), given);
  const found = await stat(file).catch(() => null);
  if (!found?.isFile()) throw new UsageError(`config module ${given} was not found`);
  let loaded: Record<string, unknown>;
  try {
    loaded = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
  } catch (error) {
    // Node loads TypeScript only through a loader.
    const hint = /\.[cm]?ts$/.test(file) ? " (a TypeScript module needs a loader: node --import tsx node_modules/.bin/express-crypto-pay ...)" : "";
    throw new UsageError(`config module ${given} could not be loaded: ${error instanceof Error ? error.message : String(error)}${hint}`);
  }
  const exported = loaded.default ?? loaded.options;
  if (exported === undefined) throw new UsageError(`config module ${given} exports neither a default export nor "options"`);
  let options: unknown;
  try {
    options = typeof exported === "function" ? await (exported as () => unknown)() : exported;
  } catch (error) {
    throw new UsageError(`the options function of ${given} failed: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (typeof options !== "object" || options === null || Array.isArray(options)) {
    throw new UsageError(`config module ${given} must export the createPaymentRouter options (an object), or a function returning them`);
  }
  return options as PaymentRouterOptions;
}
