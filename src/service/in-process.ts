import type { RouteTable } from "../api/route-table";
import { AuthenticationError } from "../api-errors";
import { paymentResources, type PaymentResources } from "../client/resources";
import type { CoreContext } from "../core/context";
import type { Mode } from "../core/merchants/records";
import type { Doors } from "./doors";

/** `service.forMerchant`: the /v1 resources, carried by in-process calls of the route table. */
export function inProcessApi(
  api: RouteTable,
  context: CoreContext,
  doors: Doors,
  call: { merchantId: string; mode: Mode; actor: string | undefined; publicUrl: string | undefined; caller: string },
): PaymentResources {
  const { merchantId, mode, actor } = call;
  if (mode !== "test" && mode !== "live") throw new TypeError(`forMerchant: mode must be "test" or "live", not ${JSON.stringify(mode)}`);
  if (actor !== undefined && (typeof actor !== "string" || actor.trim() === "")) throw new TypeError("forMerchant: actor must be a non-empty string");
  if (!call.publicUrl) {
    throw new TypeError(
      `forMerchant: in-process calls build payment links without a request to take the host from; set ${call.caller}({ publicUrl }) (and mountPath if the router is not mounted at /)`,
    );
  }
  return paymentResources((request) =>
    doors.run(async () => {
      // Read per call, as an API key is: the merchant's settings (settleCurrency) may change.
      const merchant = await context.storage.getMerchant(merchantId);
      if (!merchant) throw new AuthenticationError("invalid_api_key", `forMerchant: no merchant with id ${JSON.stringify(merchantId)}.`);
      return api.invoke({
        method: request.method,
        path: request.path,
        input: request.input,
        caller: { scope: { merchantId, mode }, merchant, actor: actor ?? null },
        idempotencyKey: request.idempotencyKey,
      });
    }),
  );
}
