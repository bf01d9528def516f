import type { CoreContext } from "../../core/context";
import type { SubscriptionRecord } from "../../core/subscriptions/records";
import { requireStoragePart } from "../../core/ports/storage/index";
import {
  type CreatedSubscription,
  cancelSubscription,
  createSubscription,
  getSubscription,
  listSubscriptions,
  updateSubscription,
} from "../../core/subscriptions/subscriptions";
import { rotatePayerLink } from "../../core/subscriptions/payer";
import { page } from "../../core/views/v1";
import { subscriptionView } from "../../core/views/subscription";
import * as schemas from "../../schemas/v1-subscriptions";
import { emptyBody, emptyQuery } from "../../schemas/webhooks";
import type { RouteCall, RouteTable } from "../route-table";
import { checkCursor } from "./payments";

/** Where the router's public pages start for a call (origin or publicUrl, and the mount path). */
export type PublicBase = (call: RouteCall) => string;

/** The payer page's path under the public base; its secret token follows. */
export const PAYER_PAGE_PATH = "/pay/subscription/";

/** /v1/subscriptions: create, read, list, update, cancel, and a new payer link. The payer's page lives in routes/subscription-page.ts. */
export function subscriptionRoutes(routes: RouteTable, context: CoreContext, publicBase: PublicBase): void {
  const view = (subscription: SubscriptionRecord) => subscriptionView(subscription, context.currencies);
  const withLink = (call: RouteCall) => (created: CreatedSubscription) => ({
    ...view(created.subscription),
    payerUrl: `${publicBase(call)}${PAYER_PAGE_PATH}${created.payerToken}`,
  });

  routes.post(
    "/subscriptions",
    schemas.subscriptionCreateRequest,
    async (body, call) =>
      withLink(call)(
        await createSubscription(
          context,
          call.scope,
          {
            customer: body.customer,
            amount: body.amount,
            amountCurrency: body.currency,
            acceptedCoins: body.acceptedCoins ?? null,
            interval: typeof body.interval === "string" ? { unit: body.interval, count: 1 } : { unit: "day", count: body.interval.days },
            startAt: body.startAt ?? null,
            trialDays: body.trialDays,
            gracePeriodDays: body.gracePeriodDays,
            renewBeforeDays: body.renewBeforeDays,
            payerCanCancel: body.payerCanCancel,
            metadata: body.metadata ?? null,
            paymentUrlPrefix: `${publicBase(call)}/pay/`,
          },
          // A replayed answer leaves the payer link out: it is a secret, shown once.
          call.commitAnswer?.((created: CreatedSubscription) => view(created.subscription)),
        ),
      ),
    {
      idempotent: true,
      docs: {
        summary: "Create a subscription",
        description:
          "A schedule of payments, one per billing period, each a hosted payment the payer pays (crypto cannot be pulled from a wallet). Without `trialDays` and `startAt`, the first period starts now and its payment is made at once (`openPaymentId`); otherwise the first payment is made `renewBeforeDays` before the first period starts. Each next payment is made `renewBeforeDays` before its period starts, once the current one is paid. A period unpaid `gracePeriodDays` after it began makes the subscription `past_due`; still unpaid when the next period begins, it is `cancelled`; paid late while past_due, `active` again. The answer carries `payerUrl`, the payer's secret page, this once (a replay of an `Idempotency-Key` leaves it out; `POST /v1/subscriptions/{id}/payer-link` makes a new one). 400 when `gracePeriodDays` or `renewBeforeDays` is not less than the shortest period, or `startAt` is in the past.",
        response: schemas.createdSubscription,
        tags: ["Subscriptions"],
      },
    },
  );

  routes.get("/subscriptions/:id", emptyQuery, async (_query, call) => view(await getSubscription(context, call.scope, call.params.id!)), {
    docs: { summary: "Fetch a subscription", response: schemas.subscription, tags: ["Subscriptions"], errors: [404] },
  });

  routes.get(
    "/subscriptions",
    schemas.subscriptionListQuery,
    async (query, call) => {
      const storage = requireStoragePart(context.storage, "subscriptions", "Subscriptions");
      const after = await checkCursor(query.cursor, (id) => storage.getSubscription(call.scope, id));
      const filter = { ...(query.status ? { status: query.status } : {}), ...(query.customer ? { customer: query.customer } : {}) };
      const rows = await listSubscriptions(context, call.scope, filter, { limit: query.limit + 1, after });
      return page(rows, query.limit, view);
    },
    {
      docs: {
        summary: "List subscriptions",
        description:
          "Newest first; `status` and `customer` filter. `limit` 1 to 100 (default 20); pass the previous page's `nextCursor` as `cursor` for the next. A cursor this list did not return is a 400.",
        response: schemas.subscriptionPage,
        tags: ["Subscriptions"],
      },
    },
  );

  routes.post(
    "/subscriptions/:id",
    schemas.subscriptionUpdateRequest,
    async (body, call) => view(await updateSubscription(context, call.scope, call.params.id!, body)),
    {
      docs: {
        summary: "Update a subscription",
        description:
          "Fields left out stay as they are. A new `amount` applies from the next period whose payment is not made yet (a payment made already keeps its amount: its payer may be paying it). `cancelAtPeriodEnd: false` takes back a cancellation at period end. 409 (40931) for a cancelled subscription.",
        response: schemas.subscription,
        tags: ["Subscriptions"],
        errors: [404, 409],
      },
    },
  );

  routes.post(
    "/subscriptions/:id/cancel",
    schemas.subscriptionCancelRequest,
    async (body, call) => view(await cancelSubscription(context, call.scope, call.params.id!, { atPeriodEnd: body.atPeriodEnd })),
    {
      docs: {
        summary: "Cancel a subscription",
        description:
          "Now by default: `cancelled` at once (`subscription.cancelled`). With `atPeriodEnd: true` it stays active with `cancelAtPeriodEnd: true`, makes no further payment, and is cancelled when the current period ends. A payment made for a period it will not serve, with nothing paid to it yet, is expired. 409 (40931) when it is cancelled already.",
        response: schemas.subscription,
        tags: ["Subscriptions"],
        errors: [404, 409],
      },
    },
  );

  routes.post("/subscriptions/:id/payer-link", emptyBody, async (_body, call) => withLink(call)(await rotatePayerLink(context, call.scope, call.params.id!)), {
    docs: {
      summary: "Make a new payer link",
      description: "A new secret link to the payer's page, in `payerUrl`; the previous link stops working at once.",
      response: schemas.createdSubscription,
      tags: ["Subscriptions"],
      errors: [404],
    },
  });
}
