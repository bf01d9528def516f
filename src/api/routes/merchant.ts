import type { CoreContext } from "../../core/context";
import { createExchange, listPairs } from "../../core/exchanges/exchanges";
import { createInvoice, getInvoice, type CreateInvoiceInput } from "../../core/invoices/invoices";
import { createPayout, getPayout } from "../../core/payouts/payouts";
import type { ExchangeRecord } from "../../core/exchanges/records";
import type { InvoiceRecord } from "../../core/invoices/records";
import type { PayoutRecord } from "../../core/payouts/records";
import * as schemas from "../../schemas/merchant";
import * as resources from "../../schemas/resources";
import type { MerchantApiViews } from "../../core/views/merchant-api";
import type { RouteCall, RouteTable } from "../route-table";

/** Builds the hosted page link of an invoice from where the router is mounted. */
export type PaymentUrlBuilder = (call: RouteCall, invoiceId: string) => string;

type InvoiceOptions = ReturnType<typeof schemas.invoiceCreateRequest.parse>;

function invoiceInput(body: Omit<InvoiceOptions, "acceptedCoins">, call: RouteCall, paymentUrl: PaymentUrlBuilder) {
  return {
    amount: body.amount,
    amountCurrency: body.amountCurrency,
    underPaidCoverTenths: body.underPaidCover,
    feePaidByPayer: body.feePaidByPayer,
    lifeTimeMinutes: body.lifeTime,
    returnUrl: body.returnUrl ?? null,
    metadata: body.metadata ?? null,
    merchant: call.merchant,
    paymentUrlFor: (id: string) => paymentUrl(call, id),
  } satisfies Partial<CreateInvoiceInput>;
}

/**
 * The merchant endpoints (POST /api/v1/merchants/...: invoices, payouts, exchanges) and the two
 * reference lists (POST /api/v1/currencies and /api/v1/exchange/pairs).
 */
export function merchantRoutes(routes: RouteTable, context: CoreContext, present: MerchantApiViews, paymentUrl: PaymentUrlBuilder): void {
  routes.post(
    "/merchants/invoice/create",
    schemas.invoiceCreateRequest,
    async (body, call) =>
      present.invoice(
        await createInvoice(
          context,
          call.scope,
          {
            ...invoiceInput(body, call, paymentUrl),
            acceptedCoins: body.acceptedCoins ?? null,
            whiteLabel: null,
          },
          call.commitAnswer?.((invoice: InvoiceRecord) => present.invoice(invoice)),
        ),
      ),
    {
      idempotent: true,
      docs: {
        summary: "Create an invoice",
        description:
          "Hosted mode: the payer picks one of `acceptedCoins` (every supported coin when left out) on the `paymentUrl` page, so `cryptoCurrency`, `network`, `address`, `rate` and `payAmount` stay null until then. `amountCurrency` defaults to USD, `lifeTime` is in minutes (1 to 1440, default 1440), `underPaidCover` a percentage (0 to 50 in steps of 0.1) of underpayment to accept. `metadata.orderId` comes back in every webhook event of the invoice.",
        response: resources.invoice,
        tags: ["Invoices"],
        errors: [503],
      },
    },
  );

  routes.post(
    "/merchants/whitelabel/create",
    schemas.whitelabelCreateRequest,
    async (body, call) =>
      present.invoice(
        await createInvoice(
          context,
          call.scope,
          {
            ...invoiceInput(body, call, paymentUrl),
            acceptedCoins: null,
            whiteLabel: { payCurrency: body.payCurrency, network: body.network ?? null },
          },
          call.commitAnswer?.((invoice: InvoiceRecord) => present.invoice(invoice)),
        ),
      ),
    {
      idempotent: true,
      docs: {
        summary: "Create a whitelabel invoice",
        description:
          "Fixes the coin (`payCurrency`) and `network` at creation, so the answer already has the deposit `address`, `rate` and `payAmount` for a payment page of the merchant's own. `network` may be left out when the coin has one network. Defaults as for invoice/create. 40002 when the amount comes to less than the network's `depositMin`.",
        response: resources.invoice,
        tags: ["Invoices"],
        errors: [503],
      },
    },
  );

  routes.post(
    "/merchants/invoice/fetch",
    schemas.invoiceFetchRequest,
    async (body, call) => {
      const invoice = await getInvoice(context, call.scope, body.invoiceId);
      return present.invoice(invoice, await context.storage.listDepositsForInvoice(invoice.id));
    },
    {
      docs: {
        summary: "Fetch an invoice",
        description:
          "The invoice with `deposits`: every transfer to its address, counted or not (a coin other than the invoice's is credited in that coin and listed with `countsTowardPayment: false`), amounts as exact decimal strings. `reversedAmount` is what was credited and then taken back because its deposit left the chain in a deep reorg.",
        response: resources.invoice,
        tags: ["Invoices"],
        errors: [404],
      },
    },
  );

  routes.post(
    "/merchants/payout/create",
    schemas.payoutCreateRequest,
    async (body, call) =>
      present.payout(
        await createPayout(
          context,
          call.scope,
          { ...body, network: body.network ?? null },
          { onCommit: call.commitAnswer?.((payout: PayoutRecord) => present.payout(payout)), merchant: call.merchant, requestedBy: call.actor },
        ),
      ),
    {
      idempotent: true,
      docs: {
        summary: "Create a payout",
        description:
          "Sends `amount` of `currency` on `network` to `address`. The balance is debited amount + the network's `withdrawFee` + `staticFixedFee` at once (422 and nothing debited when it does not cover that); the payout stays PROCESSING until the chain settles it, then COMPLETED, or FAILED with the funds credited back. Above the payout approval threshold (when the operator set one) it starts AWAITING_APPROVAL: debited, not sent, until a second person approves it (then PROCESSING) or rejects it (REJECTED, the funds credited back). `amount` must be at least the network's `withdrawMin` (see the currency list); the chain checks the address (40003). While the merchant's payout allowlist is on (set by the operator), an address that is not usable on it is a 422 (42204) and nothing is debited.",
        response: resources.payout,
        tags: ["Payouts"],
        errors: [422, 503],
      },
    },
  );

  routes.post(
    "/merchants/payout/fetch",
    schemas.payoutFetchRequest,
    async (body, call) => present.payout(await getPayout(context, call.scope, body.payoutId)),
    {
      docs: {
        summary: "Fetch a payout",
        response: resources.payout,
        tags: ["Payouts"],
        errors: [404],
      },
    },
  );

  routes.post(
    "/merchants/exchange/create",
    schemas.exchangeCreateRequest,
    async (body, call) =>
      present.exchange(
        await createExchange(
          context,
          call.scope,
          body,
          call.commitAnswer?.((exchange: ExchangeRecord) => present.exchange(exchange)),
        ),
      ),
    {
      idempotent: true,
      docs: {
        summary: "Create an exchange",
        description:
          "Converts `amount` of `fromCurrency` into `toCurrency` at the pricing rate with no spread, in one atomic step: the answer is SUCCESS, or an error and nothing moved. `amount` must be at least the pair's `minAmount` (see the pair list).",
        response: resources.exchange,
        tags: ["Exchanges"],
        errors: [422, 503],
      },
    },
  );

  // Read per request: a live chain refused at its start-up check leaves the list then.
  routes.post("/currencies", schemas.emptyRequest, (_body, call) => present.currencyList(context.chains.offered(call.scope.mode, context.currencies)), {
    docs: {
      summary: "List currencies",
      description:
        "Supported crypto currencies with their networks, confirmations and limits (withdrawFee, withdrawMin, depositMin, staticFixedFee). No request body. A live key sees only the coins and networks a configured chain serves, less those of a chain refused by its start-up check (`payments.ready()`).",
      response: resources.currencyList,
      tags: ["Reference"],
    },
  });

  routes.post("/exchange/pairs", schemas.emptyRequest, async (_body, call) => (await listPairs(context, call.scope.mode)).map((pair) => present.pair(pair)), {
    docs: {
      summary: "List exchange pairs",
      description: "Every pair an exchange can be made in, with its current rate and minimum amount. No request body.",
      response: resources.exchangePairList,
      tags: ["Reference"],
      errors: [503],
    },
  });
}
