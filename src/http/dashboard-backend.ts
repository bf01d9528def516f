import { paymentResources } from "../client/resources";
import type { CoreContext } from "../core/context";
import { DEFAULT_COOLING_OFF_HOURS } from "../core/payout-allowlist";
import type { HealthReport } from "../core/health";
import type { DashboardBackend } from "../dashboard/backend";
import { notFound } from "../errors";
import type { PaymentAdmin } from "./admin";
import type { RouteTable } from "./route-table";

/**
 * The dashboard's backend over the router's parts: the /v1 route table called in process, the
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
