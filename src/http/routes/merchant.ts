import type { CoreContext } from "../../core/context";
import { createExchange, listPairs } from "../../core/exchanges";
import { createInvoice, getInvoice, type CreateInvoiceInput } from "../../core/invoices";
import { createPayout, getPayout } from "../../core/payouts";
import * as schemas from "../../schemas/merchant";
import type { Presenter } from "../present";
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
    paymentUrlFor: (id: string) => paymentUrl(call, id),
  } satisfies Partial<CreateInvoiceInput>;
}

/** The merchant endpoints of spec section 4.1 and the reference lists of 4.2. */
export function merchantRoutes(routes: RouteTable, context: CoreContext, present: Presenter, paymentUrl: PaymentUrlBuilder): void {
  routes.post("/merchants/invoice/create", schemas.invoiceCreateRequest, async (body, call) =>
    present.invoice(
      await createInvoice(context, call.scope, {
        ...invoiceInput(body, call, paymentUrl),
        acceptedCoins: body.acceptedCoins ?? null,
        whiteLabel: null,
      }),
    ),
  );

  routes.post("/merchants/whitelabel/create", schemas.whitelabelCreateRequest, async (body, call) =>
    present.invoice(
      await createInvoice(context, call.scope, {
        ...invoiceInput(body, call, paymentUrl),
        acceptedCoins: null,
        whiteLabel: { payCurrency: body.payCurrency, network: body.network ?? null },
      }),
    ),
  );

  routes.post("/merchants/invoice/fetch", schemas.invoiceFetchRequest, async (body, call) =>
    present.invoice(await getInvoice(context, call.scope, body.invoiceId)),
  );

  routes.post("/merchants/payout/create", schemas.payoutCreateRequest, async (body, call) =>
    present.payout(await createPayout(context, call.scope, { ...body, network: body.network ?? null })),
  );

  routes.post("/merchants/payout/fetch", schemas.payoutFetchRequest, async (body, call) =>
    present.payout(await getPayout(context, call.scope, body.payoutId)),
  );

  routes.post("/merchants/exchange/create", schemas.exchangeCreateRequest, async (body, call) =>
    present.exchange(await createExchange(context, call.scope, body)),
  );

  // The currency list only changes with the configuration, so it is rendered once.
  const currencyList = present.currencyList();
  routes.post("/currencies", schemas.emptyRequest, () => currencyList);

  routes.post("/exchange/pairs", schemas.emptyRequest, async () => (await listPairs(context)).map((pair) => present.pair(pair)));
}
