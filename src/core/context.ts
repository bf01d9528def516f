import type { ChainAdapter } from "../adapters/chain/types";
import type { PricingAdapter } from "../adapters/pricing/types";
import type { Storage } from "../adapters/storage/types";
import { PaymentError } from "../errors";
import type { CurrencyCatalog } from "./currencies";
import type { Mode } from "./types";

/** A logger with the two levels the service uses; `console` fits. */
export interface Logger {
  warn(message: string, ...details: unknown[]): void;
  error(message: string, ...details: unknown[]): void;
}

/** Everything core services share: adapters, the currency list and the clock. */
export interface CoreContext {
  storage: Storage;
  pricing: PricingAdapter;
  currencies: CurrencyCatalog;
  /** The sandbox chain in test mode; the host's chain (or null when none is set) in live mode. */
  chains: Record<Mode, ChainAdapter | null>;
  /** Epoch milliseconds; injectable so tests move time deterministically. */
  now: () => number;
  /** How long after expiry a deposit still reopens an invoice (DESIGN.md: 60 minutes). */
  lateWindowMs: number;
  logger: Logger;
  /** Called after a unit of work that may have queued webhook deliveries committed, so a sender can start soon. */
  onDeliveriesRecorded?: () => void;
}

/**
 * The chain serving `mode`. Live mode never falls back to the sandbox: without a configured
 * chain it is a 503 the host has to fix.
 */
export function chainFor(context: CoreContext, mode: Mode): ChainAdapter {
  const chain = context.chains[mode];
  if (!chain) {
    throw new PaymentError(
      "chain_unavailable",
      "Live mode has no chain adapter configured: pass `chain` to createPaymentRouter() to accept live payments.",
    );
  }
  return chain;
}
