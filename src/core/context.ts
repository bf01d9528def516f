import type { PricingAdapter } from "./ports/pricing";
import type { Storage } from "./ports/storage";
import type { ChainSet } from "./chains";
import type { CurrencyCatalog } from "../currencies";

/**
 * A logger with the levels the service uses; `console` fits. `info` (one line per credited
 * deposit and other routine money movements) is optional: a logger without it gets warnings
 * and errors only.
 */
export interface Logger {
  info?(message: string, ...details: unknown[]): void;
  warn(message: string, ...details: unknown[]): void;
  error(message: string, ...details: unknown[]): void;
}

/** Everything core services share: adapters, the currency list and the clock. */
export interface CoreContext {
  storage: Storage;
  pricing: PricingAdapter;
  currencies: CurrencyCatalog;
  /** The sandbox chain in test mode; the host's chains (none until it configures them) in live mode. */
  chains: ChainSet;
  /** Epoch milliseconds; injectable so tests move time deterministically. */
  now: () => number;
  /** How long after expiry a deposit still reopens an invoice (DESIGN.md: 60 minutes). */
  lateWindowMs: number;
  logger: Logger;
  /**
   * Event types the host handles in process (`createPaymentRouter({ on })`): each event of
   * these types gets a delivery to IN_PROCESS_ENDPOINT besides its webhooks.
   */
  inProcessEventTypes?: ReadonlySet<string>;
  /** Called after a unit of work that may have queued webhook deliveries committed, so a sender can start soon. */
  onDeliveriesRecorded?: () => void;
}

