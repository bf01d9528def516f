import { z } from "zod";
import type { CoreContext } from "../../core/context";
import { sandboxAdvanceSubscription } from "../../core/subscriptions/billing";
import { subscriptionView } from "../../core/views/subscription";
import { PaymentError } from "../../errors";
import { recordId } from "../../schemas/fields";
import { subscription } from "../../schemas/v1-subscriptions";
import type { RouteTable } from "../route-table";

/** POST /api/v1/sandbox/subscription/advance */
const advanceRequest = z.strictObject({ subscriptionId: recordId("subscription").meta({ description: "The subscription's `id`." }) });

/** The sandbox endpoint of subscriptions (test mode only, as every sandbox endpoint): skip ahead to its next moment. */
export function subscriptionSandboxRoutes(routes: RouteTable, context: CoreContext): void {
  routes.post(
    "/sandbox/subscription/advance",
    advanceRequest,
    async (body, { scope }) => subscriptionView(await sandboxAdvanceSubscription(context, scope, body.subscriptionId), context.currencies),
    {
      guard: (scope) => {
        if (scope.mode !== "test") throw new PaymentError("route_not_found", "The /api/v1/sandbox endpoints exist in test mode only; use an sk_test_ key.");
      },
      docs: {
        summary: "Advance a subscription",
        description:
          "Moves a test subscription's schedule back in time so that the next thing the clock alone would do to it is due now (make its next payment, end its grace days: `subscription.past_due`, end its period: the next period, or `subscription.cancelled` when unpaid or set to end), and runs it. The answer is the /v1 subscription. Its periods move as a block, so a monthly plan's dates lose their anchor day: use it to try events, not the calendar.",
        response: subscription,
        tags: ["Sandbox"],
        errors: [404, 409],
      },
    },
  );
}
