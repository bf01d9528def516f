import type { Response } from "express";
import type { CoreContext } from "../../core/context";
import { payerOptions, payerView, type PayerView } from "../../core/views/payer";
import type { DepositRecord } from "../../core/deposits/records";
import type { InvoiceRecord } from "../../core/invoices/records";
import type { Mode } from "../../core/merchants/records";
import type { PayPageBranding } from "./branding";
import { choosePage } from "./choose-view";
import { html } from "../../html/escape";
import type { Translator } from "./i18n/index";
import { sendPage, type Page } from "./layout";
import { errorPage, expiredPage, failedPage, notFoundPage, paidPage } from "./outcome-views";
import { notice, type PageLinks } from "./parts";
import { payPage, type WalletTarget } from "./pay-view";
import { qrSvg, qrText, walletUri, type WalletNetwork } from "./qr";

/** What one request's page is drawn with: the payer's language and the merchant's branding. */
export interface PageLook {
  t: Translator;
  branding: PayPageBranding;
}

/** An invoice with its deposits, read by id alone: the page is public, its id the capability. */
export interface LoadedInvoice {
  invoice: InvoiceRecord;
  deposits: DepositRecord[];
}

/**
 * Reads an invoice and its deposits by id, whatever merchant or mode it belongs to; null when
 * unknown. Plain reads, no transaction and no row lock: anyone with the link can load the page
 * and its status poll as often as they like, and that must never queue behind (or hold up) the
 * deposit sync and expiry that change the invoice. Nothing is written here: the view works out
 * from the clock what the background loop has yet to record (an expiry). The two reads are not
 * one snapshot, so the deposits are read second: never older than the invoice, they can only
 * show a change a moment early, which the view's run of the state machine accounts for.
 */
export async function loadInvoice(context: CoreContext, id: string): Promise<LoadedInvoice | null> {
  const invoice = await context.storage.findInvoice(id);
  if (!invoice) return null;
  return { invoice, deposits: await context.storage.listDepositsForInvoice(id) };
}

/** The payer's view of a loaded invoice as of now, with the confirmations its chain needs. */
export function viewOf(context: CoreContext, loaded: LoadedInvoice): PayerView {
  const { invoice } = loaded;
  const network = invoice.coin && invoice.network ? context.currencies.network(invoice.coin, invoice.network) : undefined;
  const required = network && invoice.coin ? context.chains.confirmations(invoice.mode, invoice.coin, network) : null;
  return payerView(invoice, loaded.deposits, context.now(), context.currencies, required);
}

/**
 * Where a wallet link's chain id and token contract come from. Test mode (the sandbox): the
 * currency list's mainnet values, so a phone wallet shows what a real payment would look like.
 * Live mode: the chain serving the pair, so the link names the chain and contract it watches;
 * a chain that does not say gets no EVM link (Bitcoin-family links need neither).
 */
function walletNetwork(context: CoreContext, mode: Mode, coin: string, network: string): WalletNetwork {
  if (mode === "test") return context.currencies.network(coin, network) ?? { network };
  const link = context.chains.forPair(mode, coin, network)?.walletLink?.(coin, network) ?? null;
  return link === null ? { network } : { network, ...link };
}

/** The QR code and wallet link of an open invoice, for the amount still to pay; null before a coin and address are known. */
async function walletTarget(context: CoreContext, view: PayerView): Promise<WalletTarget | null> {
  const { units, address, coin, network } = view;
  if (!units || !address || !coin || !network) return null;
  const config = walletNetwork(context, view.mode, coin, network);
  return {
    qr: await qrSvg(qrText(coin, config, address, units.remaining, units.decimals)),
    uri: walletUri(coin, config, address, units.remaining, units.decimals),
  };
}

/**
 * Sends the page of an invoice's current state, with `error` (a message for the payer) on
 * top when the last action failed.
 */
export async function renderInvoicePage(
  context: CoreContext,
  res: Response,
  loaded: LoadedInvoice,
  links: PageLinks,
  look: PageLook,
  options: { status?: number; error?: string | null } = {},
): Promise<void> {
  const { t } = look;
  const view = viewOf(context, loaded);
  let page: Omit<Page, "merchant">;
  switch (view.stage) {
    case "choose": {
      page = choosePage(
        t,
        view,
        payerOptions(context.currencies, loaded.invoice.acceptedCoins, (coin, network) => context.chains.offers(view.mode, coin, network)),
        links,
      );
      break;
    }
    case "pay":
      page = payPage(t, view, links, await walletTarget(context, view));
      break;
    case "paid":
      page = paidPage(t, view);
      break;
    case "expired":
      page = expiredPage(t, view);
      break;
    case "failed":
      page = failedPage(t, view);
      break;
  }
  const merchant = await context.storage.getMerchant(loaded.invoice.merchantId);
  // Polling stops once nothing can change any more; an EXPIRED invoice may still be reopened by a late deposit.
  const final = view.stage === "paid" || view.stage === "failed";
  sendPage(
    res,
    options.status ?? 200,
    {
      ...page,
      body: html`${options.error ? notice("error", options.error) : null}${page.body}`,
      merchant: merchant?.name ?? null,
      testMode: view.mode === "test",
      reference: view.id,
      poll: final
        ? null
        : {
            statusUrl: links.status,
            status: view.status,
            received: view.receivedAmount ?? "",
            coin: view.coin ?? "",
            confirmations: String(view.confirmations?.count ?? ""),
          },
    },
    { ...look, switchPath: links.path },
  );
}

/** The 404 page of an unknown invoice. */
export function renderNotFound(res: Response, look: PageLook): void {
  sendPage(res, 404, notFoundPage(look.t), { ...look, switchPath: null });
}

/** The page of an unexpected failure. */
export function renderError(res: Response, look: PageLook, status = 500, message?: string): void {
  sendPage(res, status, errorPage(look.t, message), { ...look, switchPath: null });
}

/**
 * The public status JSON the page polls: what the payer already sees on the page, nothing
 * more. No merchant id, metadata, rate or fiat amount; returnUrl only once PAID.
 * `confirmations` ({ count, required }, while a deposit waits for them) lets the page show
 * each new one as it comes.
 */
export function publicStatus(view: PayerView) {
  return {
    status: view.status,
    coin: view.coin,
    network: view.network,
    address: view.address,
    payAmount: view.payAmount,
    receivedAmount: view.receivedAmount,
    confirmations: view.confirmations,
    expiresAt: new Date(view.expiresAt).toISOString(),
    returnUrl: view.returnUrl,
  };
}
