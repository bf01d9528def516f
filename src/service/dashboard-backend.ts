import { paymentResources } from "../client/resources";
import type { CoreContext } from "../core/context";
import { DEFAULT_COOLING_OFF_HOURS } from "../core/payouts/allowlist";
import { notFound } from "../errors";
import type { RouteTable } from "../api/route-table";
import type { PaymentAdmin } from "./admin";
import type { PaymentResources } from "../client/resources";
import type { HealthReport } from "../core/health/report";
import type { Logger } from "../core/ports/logger";
import type { Mode } from "../core/merchants/records";
import type { CurrencyCatalog } from "../currencies";

/**
 * The admin methods the dashboard uses: a subset of the service's `PaymentAdmin` (documented
 * there), so the service's own admin object is one.
 */
export type DashboardAdmin = Pick<
  PaymentAdmin,
  | "listMerchants"
  | "findPaymentByAddress"
  | "searchPayments"
  | "recordTimeline"
  | "findPayout"
  | "listHeldPayouts"
  | "listAllHeldPayouts"
  | "listLedgerEntries"
  | "getMerchant"
  | "listApiKeys"
  | "issueApiKey"
  | "revokeApiKey"
  | "setAllowlist"
  | "addAllowedAddress"
  | "approveAllowedAddress"
  | "removeAllowedAddress"
  | "listAllowedAddresses"
  | "approvePayout"
  | "rejectPayout"
  | "listAuditLog"
  | "operatorReport"
  | "export"
>;

/**
 * Everything the dashboard reads and acts through: the /v1 API in process for one merchant and
 * mode (validation, scoping and idempotency as an API key gets them), the admin methods for
 * what no key may do (keys, approvals, the allowlist, the audit log, exports) and for the reads
 * across modes and merchants, and the router's health. No storage and no core context: what the
 * pages show is what the API and the admin answer.
 */
export interface DashboardBackend {
  /**
   * The /v1 resources of one merchant in one mode. `actor` (`dashboard:<user>`) is the
   * requester of what the calls create, kept on it and in the audit log. Works without the
   * router's `publicUrl`: links are built as the API builds them for an in-process call.
   */
  forMerchant(merchantId: string, mode: Mode, options?: { actor?: string }): PaymentResources;
  /** The admin methods the dashboard uses. */
  admin: DashboardAdmin;
  /** The router's health report (`router.health()`). */
  health(): Promise<HealthReport>;
  /** The coins and networks the router serves: for forms, amounts and explorer links. */
  currencies: CurrencyCatalog;
  /** The router's clock (ms): today's date of the exports form. */
  now(): number;
  /** Where the dashboard logs what went wrong after a page began. */
  logger: Logger;
  /** Hours between an allowlist address's approval and its first use, as the router applies them. */
  allowlistCoolingOffHours: number;
}

/**
 * The dashboard's backend over the service's parts: the /v1 route table called in process, the
 * router's admin object and its health report.
 *
 * Unlike the public `router.forMerchant`, the resources here need no `publicUrl` (links are built
 * as for any in-process call) and do not pass the request gate: the dashboard's own router is
 * behind the gate already, so a page that began before `close()` finishes its reads.
 */
export function dashboardBackend(parts: { context: CoreContext; api: RouteTable; admin: PaymentAdmin; health: () => Promise<HealthReport> }): DashboardBackend {
  const { context, api, admin } = parts;
  return {
    forMerchant: (merchantId, mode, options = {}) =>
      paymentResources(async (call) => {
        // Read per call, as an API key is: the merchant's settings (settleCurrency) may change.
        const merchant = await context.storage.getMerchant(merchantId);
        if (!merchant) throw notFound("merchant", merchantId);
        return api.invoke({
          method: call.method,
          path: call.path,
          input: call.input,
          caller: { scope: { merchantId, mode }, merchant, actor: options.actor ?? null },
          idempotencyKey: call.idempotencyKey,
        });
      }),
    admin,
    health: () => parts.health(),
    currencies: context.currencies,
    now: context.now,
    logger: context.logger,
    allowlistCoolingOffHours: context.allowlistCoolingOffHours ?? DEFAULT_COOLING_OFF_HOURS,
  };
}
