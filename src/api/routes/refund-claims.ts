import type { CoreContext } from "../../core/context";
import { cancelRefundClaim } from "../../core/refunds/claims";
import * as v1 from "../../schemas/v1-resources";
import { emptyBody } from "../../schemas/webhooks";
import type { RouteTable } from "../route-table";
import type { V1Views } from "../../core/views/v1";

/** The path of a refund claim link's page under the mount path: `/pay/refund/<refund id>/<secret>`. */
export function refundClaimPath(refundId: string, secret: string): string {
  return `/pay/refund/${encodeURIComponent(refundId)}/${encodeURIComponent(secret)}`;
}

/** POST /v1/refunds/:id/cancel: the merchant takes back a claim link not yet claimed. */
export function refundClaimRoutes(routes: RouteTable, context: CoreContext, views: V1Views): void {
  routes.post("/refunds/:id/cancel", emptyBody, async (_body, { scope, params }) => views.refund(await cancelRefundClaim(context, scope, params.id!)), {
    docs: {
      summary: "Cancel a refund claim link",
      description:
        "Cancels a refund made as a claim link while it is AWAITING_CLAIM: it becomes CANCELLED, its link stops working, the whole hold (amount and fee as held) is credited back at once and the payment can be refunded again (`refund.cancelled`). Once the payer claimed it, 409 (40921): it is a payout on its way; a refund already CANCELLED or EXPIRED, or one sent to an address, is a 409 too (40922).",
      response: v1.refund,
      tags: ["Refunds"],
      errors: [404, 409],
    },
  });
}
