import express, { type ErrorRequestHandler, type Request, type RequestHandler, type Router } from "express";
import type { CoreContext } from "../../core/context";
import { selectPaymentMethod } from "../../core/invoices/invoices";
import { PaymentError } from "../../errors";
import { asyncErrorHandler, asyncHandler } from "../../express/async-handler";
import type { PayPageBranding } from "../pay-page/branding";
import { requestLanguage, translator, type Translator } from "../pay-page/i18n/index";
import { setCommonHeaders } from "../../html/headers";
import type { PageLinks } from "../pay-page/parts";
import { loadInvoice, publicStatus, renderError, renderInvoicePage, renderNotFound, viewOf, type PageLook } from "../pay-page/render";
import { sendJson } from "../send-json";
import { formBodyReader } from "../../express/form-body";

/** Invoice ids only: anything else under /pay (such as /pay/link/:id) is left to other routes. */
const INVOICE_ID = /^inv_[A-Za-z0-9]{1,64}$/;

/** A symbol as the form sends it. */
const SYMBOL = /^[A-Za-z0-9]{1,20}$/;

/**
 * The hosted payment page, mounted under `/pay`: GET /pay/:id (the page of the invoice's
 * current state), POST /pay/:id/method (the payer's coin choice, a plain form post) and
 * GET /pay/:id/status (public JSON the page polls). No API key: an invoice id is ~143 random
 * bits, so knowing it is the permission to see its payment page.
 * Returns the handlers to mount at `/pay`: the pages, then the error handler of everything there.
 */
export function payPageRoutes(
  context: CoreContext,
  options: { publicUrl?: string | undefined; bodyTimeoutMs: number; branding?: PayPageBranding | undefined },
): [Router, ErrorRequestHandler] {
  const router = express.Router();
  const publicHost = options.publicUrl ? new URL(options.publicUrl).host : null;
  const branding = options.branding ?? {};

  const onlyInvoices: RequestHandler = (req, _res, next) => next(INVOICE_ID.test(String(req.params.id)) ? undefined : "route");
  const linksOf = (req: Request): PageLinks => pageLinks(req, String(req.params.id));
  const lookOf = (req: Request): PageLook => ({ t: translator(requestLanguage(req).language), branding });

  router.get(
    "/:id",
    onlyInvoices,
    asyncHandler(async (req, res) => {
      const loaded = await loadInvoice(context, String(req.params.id));
      if (!loaded) return renderNotFound(res, lookOf(req));
      await renderInvoicePage(context, res, loaded, linksOf(req), lookOf(req));
    }),
  );

  router.get(
    "/:id/status",
    onlyInvoices,
    asyncHandler(async (req, res) => {
      setCommonHeaders(res);
      const loaded = await loadInvoice(context, String(req.params.id));
      if (!loaded) return sendJson(res, 404, new PaymentError("not_found", "No payment with this id.").toJSON());
      sendJson(res, 200, publicStatus(viewOf(context, loaded)));
    }),
  );

  router.post(
    "/:id/method",
    onlyInvoices,
    formBodyReader(options.bodyTimeoutMs),
    asyncHandler(async (req, res) => {
      const id = String(req.params.id);
      const links = linksOf(req);
      const look = lookOf(req);
      const { t } = look;
      const loaded = await loadInvoice(context, id);
      if (!loaded) return renderNotFound(res, look);
      if (!fromSameOrigin(req, publicHost)) {
        return renderInvoicePage(context, res, loaded, links, look, { status: 403, error: t.text("choiceForeign") });
      }
      const body = (req.body ?? {}) as Record<string, unknown>;
      const coin = typeof body.coin === "string" && SYMBOL.test(body.coin) ? body.coin.toUpperCase() : null;
      const network = typeof body.network === "string" && SYMBOL.test(body.network) ? body.network.toUpperCase() : null;
      if (coin === null || (body.network !== undefined && body.network !== "" && network === null)) {
        return renderInvoicePage(context, res, loaded, links, look, { status: 400, error: t.text("choiceInvalid") });
      }
      try {
        await selectPaymentMethod(context, id, coin, network);
      } catch (error) {
        if (!(error instanceof PaymentError)) throw error;
        if (error.type === "not_found") return renderNotFound(res, look);
        const current = (await loadInvoice(context, id)) ?? loaded;
        return renderInvoicePage(context, res, current, links, look, { status: error.status, error: payerMessage(t, error, current.invoice.coin !== null) });
      }
      setCommonHeaders(res);
      res.redirect(303, links.page);
    }),
  );

  // The error handler is returned beside the router rather than inside it, so that mounted at
  // /pay it also answers the failures of the /pay routes before it (/pay/link/:id), such as a
  // path Express cannot percent-decode: those skip a router and would reach the host app.
  return [router, pageErrors(context, lookOf)];
}

/**
 * The links of one invoice's page. A language the payer picked (`?lang=`) is carried on the
 * page's own links and on the coin form, so it outlives the form post and its redirect; one
 * taken from Accept-Language needs no carrying.
 */
function pageLinks(req: Request, id: string): PageLinks {
  const path = `${req.baseUrl}/${id}`;
  const { language, chosen } = requestLanguage(req);
  const query = chosen ? `?lang=${language}` : "";
  return { path, page: `${path}${query}`, method: `${path}/method${query}`, status: `${path}/status` };
}

/**
 * Whether a coin choice comes from our own page: choosing issues a deposit address (on a
 * Bitcoin-family chain, the next one of the merchant's wallet), so only a payer on our page
 * may do it. Browsers send Sec-Fetch-Site (Chromium, Firefox, Safari 16.4+), which must say
 * same-origin; the ones without it send Origin on every form post, which must name our host
 * (the request's or publicUrl's). `Origin: null` (a sandboxed frame, a data: URL, a privacy
 * redirect) is refused like a foreign origin: our pages set `Referrer-Policy: same-origin`, under
 * which our own form sends its real origin. A request with neither header comes from no
 * current browser (a script or a very old browser) and is refused too. There is no CSRF token:
 * the page has no session to bind one to, and any script could fetch the page for a fresh one,
 * so it would add nothing to these headers; what bounds a script is that an invoice gets one
 * address at most, and that invoices from public links are limited.
 */
export function fromSameOrigin(req: Request, publicHost: string | null): boolean {
  const site = req.get("sec-fetch-site");
  if (site !== undefined) return site === "same-origin";
  const origin = req.get("origin");
  if (origin === undefined || origin === "null") return false;
  try {
    const host = new URL(origin).host;
    return host === req.get("host") || host === publicHost;
  } catch {
    return false;
  }
}

/** What the payer reads when a choice fails: the core's messages are written for merchant developers. */
function payerMessage(t: Translator, error: PaymentError, chosenAlready: boolean): string {
  switch (error.type) {
    case "invalid_state":
      return t.text(chosenAlready ? "choiceAlreadyMade" : "choiceClosed");
    case "amount_below_minimum":
      return t.text("choiceTooSmall");
    case "chain_unavailable":
    case "pricing_unavailable":
      return t.text("choiceUnavailable");
    case "unsupported_currency":
    case "validation_error":
      return t.text("choiceNotAccepted");
    default:
      return t.text("choiceFailed");
  }
}

/** Errors under /pay answer as pages (or JSON for the status endpoint), never the API's error shape with details. */
function pageErrors(context: CoreContext, lookOf: (req: Request) => PageLook): ErrorRequestHandler {
  return asyncErrorHandler(async (error, req, res, next) => {
    if (res.headersSent) return next(error);
    const reported = (error as { status?: unknown } | null)?.status;
    const status = typeof reported === "number" && reported >= 400 && reported < 500 ? reported : 500;
    if (status === 500) context.logger.error(`${req.method} ${req.originalUrl.split("?")[0]} failed`, error);
    if (req.path.endsWith("/status")) {
      setCommonHeaders(res);
      return sendJson(res, status, new PaymentError(status === 500 ? "internal_error" : "validation_error", "The status could not be read.").toJSON());
    }
    const look = lookOf(req);
    if (status === 500) return renderError(res, look);
    // A body the form could not have sent (too large, malformed): show the page again.
    try {
      const id = /^\/(inv_[A-Za-z0-9]{1,64})\//.exec(req.path)?.[1];
      const loaded = id ? await loadInvoice(context, id) : null;
      if (!loaded) return renderError(res, look, status, look.t.text("unreadable"));
      await renderInvoicePage(context, res, loaded, pageLinks(req, loaded.invoice.id), look, { status, error: look.t.text("choiceUnreadable") });
    } catch (failure) {
      context.logger.error(`${req.method} ${req.originalUrl.split("?")[0]} failed`, failure);
      if (!res.headersSent) renderError(res, look);
    }
  });
}
