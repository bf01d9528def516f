import type { PricingAdapter } from "./ports/pricing";
import type { Storage } from "./ports/storage/index";
import type { ChainSet } from "./chains/chains";
import type { Logger } from "./ports/logger";
import type { Telemetry } from "./ports/telemetry";
import type { CurrencyCatalog } from "../currencies";
import type { PayoutApprovalRule } from "./merchants/records";

/** Everything core services share: adapters, the currency list and the clock. */
export interface CoreContext {
  storage: Storage;
  pricing: PricingAdapter;
  currencies: CurrencyCatalog;
  /** The sandbox chain in test mode; the host's chains (none until it configures them) in live mode. */
  chains: ChainSet;
  /** Epoch milliseconds; injectable so tests move time deterministically. */
  now: () => number;
  /** How long after expiry a deposit still reopens an invoice (default 60 minutes). */
  lateWindowMs: number;
  logger: Logger;
  /**
   * Event types the host handles in process (`createPaymentRouter({ on })`): each event of
   * these types gets a delivery to IN_PROCESS_ENDPOINT besides its webhooks.
   */
  inProcessEventTypes?: ReadonlySet<string>;
  /** Where metrics and traces hear of committed changes; absent when the router has neither. */
  telemetry?: Telemetry;
  /** The router's payout approval threshold (`payouts.approval`), for merchants without their own; absent: no approval. */
  payoutApproval?: PayoutApprovalRule | null;
  /** Hours from an allowlist address's approval until payouts may go to it (`payouts.allowlist.coolingOffHours`); absent: 24. */
  allowlistCoolingOffHours?: number;
  /** Called after a unit of work that may have queued webhook deliveries committed, so a sender can start soon. */
  onDeliveriesRecorded?: () => void;
}
