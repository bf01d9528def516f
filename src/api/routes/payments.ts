import type { CoreContext } from "../../core/context";
import { createInvoice, getInvoice, resolveNetwork } from "../../core/invoices/invoices";
import { paymentView } from "../../core/views/payment";
import { createRefund, getRefund } from "../../core/refunds/refunds";
import { createRefundClaim } from "../../core/refunds/claims";
import type { InvoiceRecord } from "../../core/invoices/records";
import type { PayoutRecord } from "../../core/payouts/records";
import { PaymentError } from "../../errors";
import * as schemas from "../../schemas/v1";
import * as resources from "../../schemas/resources";
import * as v1 from "../../schemas/v1-resources";
import { emptyQuery } from "../../schemas/webhooks";
import type { RouteCall, RouteTable } from "../route-table";
import { page, type V1Views } from "../../core/views/v1";
import type { PaymentUrlBuilder } from "./merchant";

/** Refuses a cursor that is not a record of this list (a typo, or another merchant's id). */
export async function checkCursor(cursor: string | undefined, exists: (id: string) => Promise<unknown>): Promise<string | null> {
  if (cursor === undefined) return null;
  if (!(await exists(cursor))) throw new PaymentError("validation_error", "Invalid request: cursor: not a cursor this list returned.");
  return cursor;
}

/** Builds a refund claim link's public URL (the HTTP shell knows the mount path) from the refund's id and its secret. */
export type RefundClaimUrlBuilder = (call: RouteCall, refundId: string, secret: string) => string;

/**
 * /v1/payments and /v1/refunds. A /v1 payment is the same record as an /api/v1 invoice: one
 * created here can be fetched there, and the reverse.
 */
export function paymentRoutes(routes: RouteTable, context: CoreContext, views: V1Views, paymentUrl: PaymentUrlBuilder, claimUrl: RefundClaimUrlBuilder): void {
  routes.post(
    "/payments",
    schemas.paymentCreateRequest,
    async (body, call: RouteCall) => {
      const view = (invoice: InvoiceRecord) => paymentView(invoice, context.currencies);
      // A coin with one network needs no chain; with several and none given, the payer picks
      // the network on the hosted page.
      // An unknown coin throws the clear unsupported-currency error here.
      const currency = context.currencies.crypto(body.currency) ?? resolveNetwork(context, body.currency, null).currency;
      // Live mode counts only the networks a configured chain serves.
      const networks = context.chains.networks(call.scope.mode, currency);
      const fixed = body.chain !== undefined || networks.length === 1;
      if (networks.length === 0) context.chains.require(call.scope.mode, currency.symbol, body.chain ?? currency.networks[0]!.network); // 503 without chains, else 400 naming what is served
      // A fixed chain refuses a zero amount through depositMin (40002); a payment whose network
      // the payer picks has no minimum yet, so zero is refused here.
      if (!fixed && /^0(\.0+)?$/.test(body.amount)) throw new PaymentError("validation_error", "Invalid request: amount: must be greater than 0.");
      const invoice = await createInvoice(
        context,
        call.scope,
        {
          amount: body.amount,
          amountCurrency: body.amountCurrency ?? body.currency,
          acceptedCoins: fixed ? null : [body.currency],
          whiteLabel: fixed ? { payCurrency: body.currency, network: body.chain ?? null } : null,
          underPaidCoverTenths: body.underPaidCover,
          feePaidByPayer: body.feePaidByPayer,
          lifeTimeMinutes: body.lifeTime,
          returnUrl: body.returnUrl ?? null,
          metadata: body.metadata ?? null,
          settleCurrency: body.settleCurrency,
          merchant: call.merchant,
          paymentUrlFor: (id) => paymentUrl(call, id),
        },
        call.commitAnswer?.(view),
      );
      return view(invoice);
    },
    {
      idempotent: true,
      docs: {
        summary: "Create a payment",
        description:
          "A payment is an invoice: the same record, id and statuses as `/api/v1/merchants/invoice/*`, so it can be fetched under either prefix. Amounts are decimal strings. `currency` is the coin the payer pays in. `chain` is optional: left out, a single-network coin uses its network, and a coin on several networks lets the payer choose on the hosted `checkoutUrl` page, so `currency`, `chain`, `address`, `rate` and `payAmount` stay null until then. `amountCurrency` defaults to `currency` (the amount is in the coin); give a fiat such as `USD` to price it at the live rate, locked when the network is fixed. `lifeTime` is in minutes (1 to 1440, default 1440), `underPaidCover` a percentage (0 to 50 in steps of 0.1) of underpayment to accept, and `feePaidByPayer` grosses the payer's amount up by the 0.5% fee. `settleCurrency` turns on auto-conversion: each credit is converted into that coin at the live rate (a conversion with this `paymentId`); null keeps the coin paid in, left out uses the merchant's default. `metadata.orderId` comes back in every webhook event of the payment. 40002 when a fixed-network payment comes to less than the network's `depositMin`.",
        response: resources.payment,
        tags: ["Payments"],
        errors: [503],
      },
    },
  );

  routes.get(
    "/payments/:id",
    emptyQuery,
    async (_query, { scope, params }) => {
      const invoice = await getInvoice(context, scope, params.id!);
      return paymentView(invoice, context.currencies, await context.storage.listDepositsForInvoice(invoice.id));
    },
    {
      docs: {
        summary: "Fetch a payment",
        description:
          "Any payment of this key's merchant and mode, including one created as an `/api/v1` invoice, with `deposits`: every transfer to its address, counted or not. A coin other than the payment's (a stray deposit) is credited to the balance in that coin, less the 0.5% fee, and listed with `countsTowardPayment: false`; refund it with POST /v1/refunds and its `depositId`. A deposit credited and then removed by a reorg deeper than its confirmations is REVERSED: its credit was taken back and `reversedAmount` shows it.",
        response: resources.payment,
        tags: ["Payments"],
        errors: [404],
      },
    },
  );

  routes.get(
    "/payments",
    schemas.paymentListQuery,
    async (query, { scope }) => {
      const after = await checkCursor(query.cursor, (id) => context.storage.getInvoice(scope, id));
      const rows = await context.storage.listInvoices(
        scope,
        { status: query.status, createdFrom: query.createdFrom, createdTo: query.createdTo, network: query.chain },
        { limit: query.limit + 1, after },
      );
      return page(rows, query.limit, (invoice) => paymentView(invoice, context.currencies));
    },
    {
      docs: {
        summary: "List payments",
        description:
          "Newest first (by creation time, then id), filtered by `status`, `chain` and creation time (`createdFrom` inclusive, `createdTo` exclusive, ISO 8601). `limit` 1 to 100 (default 20); pass the previous page's `nextCursor` as `cursor` for the next. Payments created while you page sort before your cursor, so a walk sees every older one exactly once. A cursor this list did not return is a 400.",
        response: v1.paymentPage,
        tags: ["Payments"],
      },
    },
  );

  routes.post(
    "/refunds",
    schemas.refundCreateRequest,
    async (body, call) => {
      const { scope, commitAnswer, merchant, actor } = call;
      const input = {
        paymentId: body.paymentId,
        depositId: body.depositId ?? null,
        amount: body.amount ?? null,
        address: body.address ?? null,
        network: body.chain ?? null,
        currency: body.currency ?? null,
        claimNetworks: body.claimChains ?? null,
        claimCoins: body.claimCoins ?? null,
        expiresInDays: body.expiresInDays ?? null,
      };
      // The idempotent answer is stored without claimUrl: the secret is shown once, never kept.
      const onCommit = commitAnswer?.((refund: PayoutRecord) => views.refund(refund));
      if (input.address === null) {
        const { refund, secret } = await createRefundClaim(context, scope, input, onCommit);
        return { ...views.refund(refund), claimUrl: claimUrl(call, refund.id, secret) };
      }
      return views.refund(await createRefund(context, scope, input, onCommit, { merchant, requestedBy: actor }));
    },
    {
      idempotent: true,
      docs: {
        summary: "Refund a payment",
        description:
          "Gives back part of what a payment received (`amount`, a decimal string in the payment's coin) or, without `amount`, all that is left, to `address`, on the payment's network unless `chain` names another. With `depositId`, gives back that one deposit of the payment (a stray coin sent to its address, say) in the deposit's coin and on its network: at most its credited amount (what was received less the 0.5% fee) less its refunds not FAILED; a deposit that is not CONFIRMED has nothing to refund (409). Never more than the confirmed deposits less the refunds not FAILED: an `amount` over that is a 400 that says how much is left; leaving `amount` out when nothing is left is a 409, as is refunding a payment whose coin was never chosen. Two refunds sent at once are checked under the payment's lock: every 200 is a refund its request created, and a request without `amount` that another refund beat to what was left is a 409 (40902) naming it. A refund is a payout: the balance is debited amount + the network's fee at once (422 and nothing debited when it does not cover that), then it goes PROCESSING -> COMPLETED, or FAILED with the debit returned and the amount refundable again. While the merchant's payout allowlist is on (set by the operator), an address that is not usable on it is a 422 (42204) and nothing is debited.\n\n" +
          "**Claim link.** Without `address`, the refund is a claim link: the answer's `claimUrl` (shown once; stored only hashed) is for the payer, who chooses a network among `claimChains` (default: `chain`, else the payment's) or, with `claimCoins`, another coin and network (the amount converted at the live rate of the claim; the claim returns the hold and debits that coin's balance amount + fee, 42201 when short), gives an address the chain checks, sees the amount and confirms. The refund answers AWAITING_CLAIM, and its amount plus the highest network fee of those networks is held from the balance at once (422 when the balance does not cover it). `amount` may be fixed in a fiat `currency` (e.g. USD): the hold is then converted at today's rate plus a 5% margin, and the claim converts at the live rate of the claim (shown to the payer before confirming). The claim settles the hold exactly: what it held beyond amount + fee of the chosen network is credited back (a coin that fell past the margin is debited; 42201 refuses the claim when the balance cannot cover it). Once claimed, it is a payout like any other (the payout allowlist and approval threshold apply: AWAITING_APPROVAL above it). It lapses after `expiresInDays` (default 30; EXPIRED) or is cancelled with POST /v1/refunds/{id}/cancel (CANCELLED), the whole hold credited back either way.",
        response: v1.createdRefund,
        tags: ["Refunds"],
        errors: [404, 409, 422, 503],
      },
    },
  );

  routes.get("/refunds/:id", emptyQuery, async (_query, { scope, params }) => views.refund(await getRefund(context, scope, params.id!)), {
    docs: {
      summary: "Fetch a refund",
      description: "404 for the id of a withdrawal: refunds and withdrawals are separate lists.",
      response: v1.refund,
      tags: ["Refunds"],
      errors: [404],
    },
  });

  routes.get(
    "/refunds",
    schemas.refundListQuery,
    async (query, { scope }) => {
      const after = await checkCursor(query.cursor, async (id) => (await context.storage.getPayout(scope, id))?.refundOf);
      const rows = await context.storage.listPayouts(scope, { kind: "refund", refundOf: query.paymentId }, { limit: query.limit + 1, after });
      return page(rows, query.limit, (refund) => views.refund(refund));
    },
    {
      docs: {
        summary: "List refunds",
        description:
          "Newest first, optionally only those of `paymentId`. `limit` 1 to 100 (default 20); pass the previous page's `nextCursor` as `cursor` for the next. A cursor this list did not return is a 400.",
        response: v1.refundPage,
        tags: ["Refunds"],
      },
    },
  );
}
