import type { PricingAdapter } from "../adapters/pricing/types";
import type { Storage } from "../adapters/storage/types";
import type { ChainSet } from "./chains";
import type { CurrencyCatalog } from "./currencies";

/** A logger with the levels the service uses; `console` fits. */
export interface Logger {
  /** Records of money moving (a payout sent, ...): one line each; optional, skipped when absent. */
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

