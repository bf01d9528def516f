/**
 * A storage adapter as a third party would write one: a wrapper that times every call of the
 * storage it wraps and reports slow ones (and failures) to a function of yours. It delegates
 * everything, so it keeps every promise of the contract the wrapped storage keeps, and the
 * conformance suite proves it (logging-storage.test.ts).
 *
 * In an app: `createPaymentRouter({ storage: loggingStorage(postgresStorage({ ... }), { ... }) })`.
 * (Inside this repository the imports point at src/; an app imports "express-crypto-pay".)
 */
import type { Storage } from "../../src/index";
import type { StorageTransaction } from "../../src/storage";

/** One storage call as the log sees it. */
export interface StorageCall {
  /** "getInvoice", or "tx.postLedgerEntries" for a call inside a transaction, or "transaction". */
  method: string;
  ms: number;
  error?: unknown;
}

/** Options of {@link loggingStorage}. */
export interface LoggingStorageOptions {
  /** Called for each call slower than `slowMs`, and for each one that failed. */
  log: (call: StorageCall) => void;
  /** Calls faster than this are not logged (unless they fail). Default 0: all of them. */
  slowMs?: number;
}

/** Wraps every function property of `target` so that it reports its duration. */
function timed<T extends object>(target: T, prefix: string, report: (call: StorageCall) => void): T {
  return new Proxy(target, {
    get(object, property, receiver) {
      const value = Reflect.get(object, property, receiver) as unknown;
      if (typeof value !== "function" || typeof property !== "string") return value;
      return async (...args: unknown[]) => {
        const started = performance.now();
        try {
          const result = await (value as (...a: unknown[]) => Promise<unknown>).apply(object, args);
          report({ method: `${prefix}${property}`, ms: performance.now() - started });
          return result;
        } catch (error) {
          report({ method: `${prefix}${property}`, ms: performance.now() - started, error });
          throw error;
        }
      };
    },
  });
}

/** A Storage that logs the slow and failed calls of `inner`, and otherwise is `inner`. */
export function loggingStorage(inner: Storage, options: LoggingStorageOptions): Storage {
  const slowMs = options.slowMs ?? 0;
  const report = (call: StorageCall) => {
    if (call.error !== undefined || call.ms >= slowMs) options.log(call);
  };
  const reads = timed(inner, "", report);
  return {
    ...Object.fromEntries(Object.keys(inner).map((key) => [key, (reads as unknown as Record<string, unknown>)[key]])),
    // The work gets a timed view of its transaction; the transaction as a whole is timed too.
    transaction: <T>(work: (tx: StorageTransaction) => Promise<T>) => reads.transaction((tx) => work(timed(tx, "tx.", report))),
    close: () => inner.close(),
  } as Storage;
}
