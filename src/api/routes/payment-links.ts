import type { CoreContext } from "../../core/context";
import { createPaymentLink, deactivatePaymentLink, getPaymentLink } from "../../core/payment-links/payment-links";
import type { PaymentLinkRecord } from "../../core/payment-links/records";
import { requireStoragePart } from "../../core/ports/storage/index";
import * as schemas from "../../schemas/v1";
import * as v1 from "../../schemas/v1-resources";
import { emptyBody, emptyQuery } from "../../schemas/webhooks";
import type { RouteCall, RouteTable } from "../route-table";
import { page, type V1Views } from "../../core/views/v1";
import { checkCursor } from "./payments";

/** Builds the public URL of a payment link from where the router is mounted. */
export type LinkUrlBuilder = (call: RouteCall, linkId: string) => string;

/** /v1/payment-links: create, read, list, deactivate. The public routes of a link's URL live in pay-link.ts. */
export function paymentLinkRoutes(routes: RouteTable, context: CoreContext, views: V1Views, linkUrl: LinkUrlBuilder): void {
  const view = (call: RouteCall) => (link: PaymentLinkRecord) => views.paymentLink(link, linkUrl(call, link.id));

  routes.post(
    "/payment-links",
    schemas.paymentLinkCreateRequest,
    async (body, call) =>
      view(call)(
        await createPaymentLink(
          context,
          call.scope,
          {
            amount: body.amount,
            amountCurrency: body.amountCurrency,
            acceptedCoins: body.acceptedCoins ?? null,
            feePaidByPayer: body.feePaidByPayer,
            underPaidCoverTenths: body.underPaidCover,
            lifeTimeMinutes: body.lifeTime,
            returnUrl: body.returnUrl ?? null,
            metadata: body.metadata ?? null,
            settleCurrency: body.settleCurrency ?? null,
          },
          call.commitAnswer?.(view(call)),
        ),
      ),
    {
      idempotent: true,
      docs: {
        summary: "Create a payment link",
        description:
          "A reusable link: its public `url` shows the link's page, which creates nothing (crawlers and link previews fetch links); the page's button posts to the same URL, which creates a fresh hosted payment with these settings and redirects (303) the payer to its page. `amount` is a decimal string in `amountCurrency` (default USD); the payer picks one of `acceptedCoins` (every supported coin when left out). Other settings as for `POST /v1/payments` (`lifeTime` 1 to 1440 minutes, default 1440; `underPaidCover` 0 to 50). `settleCurrency` left out means no auto-conversion (the merchant's default does not apply). Each created payment's `metadata` is this `metadata` plus `paymentLinkId`. The settings are checked now, not at the first payment.",
        response: v1.paymentLink,
        tags: ["Payment links"],
      },
    },
  );

  routes.get("/payment-links/:id", emptyQuery, async (_query, call) => view(call)(await getPaymentLink(context, call.scope, call.params.id!)), {
    docs: {
      summary: "Fetch a payment link",
      response: v1.paymentLink,
      tags: ["Payment links"],
      errors: [404],
    },
  });

  routes.get(
    "/payment-links",
    schemas.plainListQuery,
    async (query, call) => {
      const storage = requireStoragePart(context.storage, "paymentLinks", "Payment links");
      const after = await checkCursor(query.cursor, (id) => storage.getPaymentLink(call.scope, id));
      const rows = await storage.listPaymentLinks(call.scope, { limit: query.limit + 1, after });
      return page(rows, query.limit, view(call));
    },
    {
      docs: {
        summary: "List payment links",
        description:
          "Newest first, deactivated links included. `limit` 1 to 100 (default 20); pass the previous page's `nextCursor` as `cursor` for the next. A cursor this list did not return is a 400.",
        response: v1.paymentLinkPage,
        tags: ["Payment links"],
      },
    },
  );

  routes.post(
    "/payment-links/:id/deactivate",
    emptyBody,
    async (_body, call) => view(call)(await deactivatePaymentLink(context, call.scope, call.params.id!)),
    {
      docs: {
        summary: "Deactivate a payment link",
        description:
          "From now on its `url` answers 410 and creates nothing; payments it created already are unaffected. Idempotent: deactivating an inactive link answers it as it is. There is no way to reactivate a link: create a new one.",
        response: v1.paymentLink,
        tags: ["Payment links"],
        errors: [404],
      },
    },
  );
}
