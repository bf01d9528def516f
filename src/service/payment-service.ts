import type { SandboxChain } from "../adapters/chain/sandbox";
import type { PaymentResources } from "../client/resources";
import type { HealthReport, HealthReportOptions } from "../core/health/report";
import type { Mode } from "../core/merchants/records";
import type { Storage } from "../core/ports/storage/index";
import type { TickReport } from "../core/background";
import type { PaymentAdmin } from "./admin";
import type { PaymentRouterOptions } from "./options";

/** Options of `createPaymentService`: the same object `createPaymentRouter` takes. */
export type PaymentServiceOptions = PaymentRouterOptions;

/**
 * The payment service without a transport: storage, chains, prices, background work, the
 * webhook sender and the /v1 API in process. `createPaymentService` builds it; a worker process
 * runs it as is, and `createPaymentRouter(service)` mounts HTTP on it.
 */
export interface PaymentService {
  /** Merchant and key management. */
  readonly admin: PaymentAdmin;
  /** The storage in use. */
  readonly storage: Storage;
  /** The simulated chain behind test mode. */
  readonly sandbox: SandboxChain;
  /**
   * The /v1 API in process, for one merchant in one mode, without HTTP or an API key:
   * `payments.create(body)`, `payments.retrieve(id)`, `withdrawals.create`, `refunds.create`,
   * `balances.retrieve()` and the rest, each taking the /v1 request and resolving with the /v1
   * object. The same routes run as for HTTP (validation, idempotency with the `idempotencyKey`
   * option, results); errors reject as the `PaymentError` the HTTP API would have answered.
   * Links it builds start at `publicUrl` and `mountPath`, so `publicUrl` is required.
   * `actor` names who asks (your user's id): recorded as the `requestedBy` of the payouts it
   * creates, so that user cannot approve them (docs/money-controls.md); without it, nobody.
   */
  forMerchant(merchantId: string, mode: Mode, options?: { actor?: string }): PaymentResources;
  /**
   * Runs one round of background work now: every chain's deposit sync, payouts and
   * housekeeping, expiry, then the webhook deliveries that are due (waiting for them to finish),
   * so every effect is visible when it resolves. Reports what it did; rejects with every failure
   * together after the rest ran. With `{ mode: "test" }`, live chains are left out, so a hung
   * live node never makes it wait. A live chain's round not ended within a few seconds (its node
   * does not answer) is not waited for: the rejection names it as still running, and it goes on
   * in the background. So it settles within 10 s whatever a node does (webhook deliveries aside).
   */
  tick(options?: { mode?: Mode }): Promise<TickReport & { webhooksSent: number }>;
  /**
   * Resolves once every live chain's node was reached and checked: the network it is on, its
   * chain id, and that the keys given belong to that network (a mainnet xpub on a regtest node
   * is refused). While a node cannot be reached it is asked again (every background interval, or
   * every second). Rejects naming the mismatch of a chain that fails the check: that chain is
   * never scanned and its coins answer 503 (50301). Await it before `app.listen` to refuse a
   * misconfiguration at start.
   */
  ready(): Promise<void>;
  /**
   * The state of every part: storage (reachable, round trip), each live chain (node head,
   * scanner height and lag, last scan, pending payouts), prices of the coins served, webhook
   * backlog and background loops; "unhealthy" with its reasons when payments cannot be taken or
   * credited (docs/operations.md). Holds no key, secret, node URL or merchant data. With
   * `{ oneShot: true }`, for a process that runs no background work (the command line): nodes
   * are checked and read now, scans and the webhook backlog come from storage.
   */
  health(options?: HealthReportOptions): Promise<HealthReport>;
  /**
   * One scrape of the Prometheus metrics (what a router's `metricsHandler` serves): the text
   * and its content type, or `unavailable` with the reason when prom-client is not installed or
   * metrics are off.
   */
  metrics(): Promise<{ contentType: string; body: string } | { unavailable: string }>;
  /**
   * Stops cleanly: from the call on, new requests (through any router mounted on it, its
   * dashboards, and `forMerchant` calls) are refused with 503 (50321) and nothing done;
   * requests in flight finish and background rounds end, then the webhook sender, the chains,
   * the prices and the storage close. A live chain whose node hangs is not waited for past a
   * few seconds (its round is left to end on its own): it resolves within 10 s. Answers given
   * before it resolved are stored as they say. Calling it again returns the same promise.
   */
  close(): Promise<void>;
}
