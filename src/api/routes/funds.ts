import { balanceSheet } from "../../core/ledger/balances";
import type { CoreContext } from "../../core/context";
import { createExchange } from "../../core/exchanges/exchanges";
import { createPayout, getPayout } from "../../core/payouts/payouts";
import type { ExchangeRecord } from "../../core/exchanges/records";
import type { PayoutRecord } from "../../core/payouts/records";
import { notFound } from "../../errors";
import * as schemas from "../../schemas/v1";
import * as v1 from "../../schemas/v1-resources";
import { emptyQuery } from "../../schemas/webhooks";
import type { RouteTable } from "../route-table";
import { page, type V1Views } from "../../core/views/v1";
import { checkCursor } from "./payments";

/** /v1/withdrawals, /v1/conversions and /v1/balances: the merchant's money. */
export function fundsRoutes(routes: RouteTable, context: CoreContext, views: V1Views): void {
  routes.post(
    "/withdrawals",
    schemas.withdrawalCreateRequest,
    async (body, { scope, commitAnswer, merchant, actor }) => {
      const input = { currency: body.currency, network: body.chain ?? null, amount: body.amount, address: body.address };
      const onCommit = commitAnswer?.((payout: PayoutRecord) => views.withdrawal(payout));
      return views.withdrawal(await createPayout(context, scope, input, { onCommit, merchant, requestedBy: actor }));
    },
    {
      idempotent: true,
      docs: {
        summary: "Create a withdrawal",
        description:
          "Sends `amount` (a decimal string) of `currency` to `address`. `chain` may be left out when the coin has one network. The balance is debited amount + `fee` (the network's `withdrawFee` + `staticFixedFee`) at once, 422 and nothing debited when it does not cover that; the withdrawal answers PROCESSING and becomes COMPLETED, or FAILED with the whole debit returned, as the chain reports. Above the payout approval threshold (when the operator set one) it answers AWAITING_APPROVAL: debited, not sent, until a second person approves it (then PROCESSING) or rejects it (REJECTED, the whole debit returned). `amount` must be at least the network's `withdrawMin` (40002, see the currency list); the chain checks the address (40003). While the merchant's payout allowlist is on (set by the operator), an address that is not usable on it is a 422 (42204) and nothing is debited.",
        response: v1.withdrawal,
        tags: ["Withdrawals"],
        errors: [422, 503],
      },
    },
  );

  routes.get(
    "/withdrawals/:id",
    emptyQuery,
    async (_query, { scope, params }) => {
      const payout = await getPayout(context, scope, params.id!);
      if (payout.refundOf !== null) throw notFound("withdrawal", params.id!);
      return views.withdrawal(payout);
    },
    {
      docs: {
        summary: "Fetch a withdrawal",
        description: "404 for the id of a refund: refunds and withdrawals are separate lists. The same record as an `/api/v1` payout.",
        response: v1.withdrawal,
        tags: ["Withdrawals"],
        errors: [404],
      },
    },
  );

  routes.get(
    "/withdrawals",
    schemas.withdrawalListQuery,
    async (query, { scope }) => {
      const after = await checkCursor(query.cursor, async (id) => (await context.storage.getPayout(scope, id))?.refundOf === null);
      const rows = await context.storage.listPayouts(scope, { kind: "payout", status: query.status }, { limit: query.limit + 1, after });
      return page(rows, query.limit, (payout) => views.withdrawal(payout));
    },
    {
      docs: {
        summary: "List withdrawals",
        description:
          "Newest first, optionally only those with `status`; refunds are not listed here. `limit` 1 to 100 (default 20); pass the previous page's `nextCursor` as `cursor` for the next. A cursor this list did not return is a 400.",
        response: v1.withdrawalPage,
        tags: ["Withdrawals"],
      },
    },
  );

  routes.post(
    "/conversions",
    schemas.conversionCreateRequest,
    async (body, { scope, commitAnswer }) =>
      views.conversion(
        await createExchange(
          context,
          scope,
          body,
          commitAnswer?.((exchange: ExchangeRecord) => views.conversion(exchange)),
        ),
      ),
    {
      idempotent: true,
      docs: {
        summary: "Create a conversion",
        description:
          "Converts `amount` (a decimal string) of `fromCurrency` into `toCurrency` at the pricing adapter's rate with no spread, in one atomic step: the answer is SUCCESS, or an error and nothing moved (422 when the `fromCurrency` balance does not cover `amount`). `amount` must be at least the pair's `minAmount` (40002, see the exchange pairs). 503 when no price can be had right now.",
        response: v1.conversion,
        tags: ["Conversions"],
        errors: [422, 503],
      },
    },
  );

  routes.get(
    "/conversions/:id",
    emptyQuery,
    async (_query, { scope, params }) => {
      const exchange = await context.storage.getExchange(scope, params.id!);
      if (!exchange) throw notFound("conversion", params.id!);
      return views.conversion(exchange);
    },
    {
      docs: {
        summary: "Fetch a conversion",
        description: "Conversions made through the API (or as `/api/v1` exchanges) and those auto-conversion made from a payment's credit (with `paymentId`).",
        response: v1.conversion,
        tags: ["Conversions"],
        errors: [404],
      },
    },
  );

  routes.get(
    "/conversions",
    schemas.plainListQuery,
    async (query, { scope }) => {
      const after = await checkCursor(query.cursor, (id) => context.storage.getExchange(scope, id));
      const rows = await context.storage.listExchanges(scope, { limit: query.limit + 1, after });
      return page(rows, query.limit, (exchange) => views.conversion(exchange));
    },
    {
      docs: {
        summary: "List conversions",
        description:
          "Newest first, auto-conversions of payments (with `paymentId`) included. `limit` 1 to 100 (default 20); pass the previous page's `nextCursor` as `cursor` for the next. A cursor this list did not return is a 400.",
        response: v1.conversionPage,
        tags: ["Conversions"],
      },
    },
  );

  routes.get(
    "/balances",
    emptyQuery,
    async (_query, { scope }) => ({
      data: (await balanceSheet(context, scope)).map((balance) => views.balance(balance)),
    }),
    {
      docs: {
        summary: "List balances",
        description:
          "The merchant's balances in this key's mode: one row per currency of the list (zero where nothing was received). `available` is credited and spendable; `pending` is seen on chain but unconfirmed (gross, not spendable); `lastSettledAt` is when the ledger last changed that balance. Not paginated.",
        response: v1.balanceList,
        tags: ["Balances"],
      },
    },
  );
}
