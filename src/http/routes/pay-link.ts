import { DEFAULT_BODY_TIMEOUT_MS } from "../../body-deadline";
import { formBodyReader } from "../../express/form-body";
import express, { type Request, type RequestHandler, type Response, type Router } from "express";
import type { CoreContext } from "../../core/context";
import { openInvoiceOfLink, openPaymentLink, payThroughPaymentLink } from "../../core/payment-links/payment-links";
import { PaymentError } from "../../errors";
import { isPossibleId } from "../../schemas/fields";
import { asyncHandler } from "../../express/async-handler";
import type { PayPageBranding } from "../pay-page/branding";
import { requestLanguage, translator, type Translator } from "../pay-page/i18n/index";
import { setCommonHeaders } from "../../html/headers";
import { sendPage } from "../pay-page/layout";
import { paymentLinkPage, paymentLinkRefusalPage } from "../pay-page/link-view";
import { VisitorCookie } from "../pay-page/visitor-cookie";
import { clientKey, RateLimiter } from "../rate-limit";
import type { RateLimit } from "../../service/options";

/** How many invoices public links may create, unless the host says otherwise. */
export const DEFAULT_LINK_LIMITS = {
  perClient: { limit: 10, windowSeconds: 600 },
  perLink: { limit: 100, windowSeconds: 600 },
} as const satisfies Record<string, RateLimit>;

/** What the routes of payment links are configured with. */
export interface PayLinkOptions {
  perClient?: RateLimit | false;
  perLink?: RateLimit | false;
  /** Whether the public origin is HTTPS (the visitor cookie is then Secure even behind a proxy that terminates TLS). */
  secure?: boolean;
  /** How long the button's form body may take to arrive, in ms (the router's `bodyTimeoutMs`). */
  bodyTimeoutMs?: number;
  /** The merchant's look on the page (the router's `payPage`). */
  branding?: PayPageBranding;
}

/** A refusal by a rate limit, with the seconds to send as Retry-After (the page words the wait in the payer's language). */
class RateLimitedError extends PaymentError {
  constructor(readonly retryAfterSeconds: number) {
    super("rate_limited", `Too many payments were started here just now; retry after ${retryAfterSeconds} s.`);
  }
}

/** Statuses and one-line explanations, in the payer's language, for a link that cannot be shown or paid. */
function refusal(t: Translator, error: unknown): { status: number; title: string; text: string } | null {
  if (!(error instanceof PaymentError)) return null;
  if (error.type === "not_found") return { status: 404, title: t.text("linkNotFoundTitle"), text: t.text("linkNotFoundText") };
  if (error.type === "invalid_state") return { status: 410, title: t.text("linkInactiveTitle"), text: t.text("linkInactiveText") };
  if (error instanceof RateLimitedError) {
    return { status: 429, title: t.text("linkLimitedTitle"), text: t.text("linkLimitedText", { wait: t.inTime(error.retryAfterSeconds) }) };
  }
  if (error.status === 503) return { status: 503, title: t.text("linkDownTitle"), text: t.text("linkDownText") };
  return { status: error.status, title: t.text("linkUnusableTitle"), text: t.text("linkUnusableText") };
}

/** A handler of the link's URL whose refusals are answered with our page; anything else goes on to the error handler of /pay. */
function linkHandler(branding: PayPageBranding, work: (req: Request, res: Response) => Promise<void>): RequestHandler {
  return asyncHandler(async (req, res, next) => {
    try {
      await work(req, res);
    } catch (error) {
      const t = translator(requestLanguage(req).language);
      const answer = refusal(t, error);
      if (!answer) return next(error);
      if (error instanceof RateLimitedError) res.setHeader("Retry-After", String(error.retryAfterSeconds));
      sendPage(res, answer.status, paymentLinkRefusalPage(answer.title, answer.text), { t, branding, switchPath: null });
    }
  });
}

/** `?lang=xx` when the payer picked a language on the page, so the pages that follow keep it. */
function languageQuery(req: Request): string {
  const { language, chosen } = requestLanguage(req);
  return chosen ? `?lang=${language}` : "";
}

/** The link id of a request; an id that cannot be one of ours (NUL, another alphabet) is unknown, not a storage error. */
function linkId(req: Request): string {
  const id = String(req.params.id);
  if (!isPossibleId(id)) throw new PaymentError("not_found", "No payment link with this id.");
  return id;
}

/**
 * The public URL of a payment link, `/pay/link/:id` (mounted without a path, as its links are
 * built from `req.baseUrl`). GET shows the link's page and creates nothing: crawlers, link
 * checkers and chat previews fetch links, and every visit used to leave an invoice behind. POST
 * (the page's button, a plain form that needs no JavaScript) answers 303 to an invoice's page,
 * so a reload of that page does not create another.
 *
 * The POST needs no key, so it is what an anonymous client can repeat; each new invoice sends
 * `payment.created` to the merchant. So:
 * - a visitor whose browser holds the cookie of this link's open invoice (PENDING, unexpired)
 *   is sent back to it, and nothing is created;
 * - otherwise a new invoice is created only within the per-client and per-link limits (per
 *   process, in memory); past either, a 429 page with Retry-After.
 * It takes no CSRF token and no Origin check: it needs no credentials and acts for nobody, so a
 * post from another site can do nothing anyone could not do with the public link itself.
 */
export function payLinkRoutes(context: CoreContext, paymentUrlFor: (req: Request, invoiceId: string) => string, options: PayLinkOptions = {}): Router {
  const router = express.Router();
  const visitors = new VisitorCookie(context.storage);
  const limiter = (rule: RateLimit | false | undefined, fallback: RateLimit) => (rule === false ? null : new RateLimiter(rule ?? fallback, context.now));
  const perClient = limiter(options.perClient, DEFAULT_LINK_LIMITS.perClient);
  const perLink = limiter(options.perLink, DEFAULT_LINK_LIMITS.perLink);
  const branding = options.branding ?? {};

  /** Spends one creation of this client and this link, or throws the 429 naming when to come back. */
  const admit = (req: Request, linkId: string) => {
    const client = clientKey(req.ip);
    const waits = [perClient?.check(client), perLink?.check(linkId)].map((decision) => (decision && !decision.allowed ? decision.retryAfterSeconds : 0));
    if (Math.max(...waits) > 0) throw new RateLimitedError(Math.max(...waits));
    perClient?.take(client);
    perLink?.take(linkId);
  };

  router.get(
    "/pay/link/:id",
    linkHandler(branding, async (req, res) => {
      const link = await openPaymentLink(context, linkId(req));
      const merchant = await context.storage.getMerchant(link.merchantId);
      const t = translator(requestLanguage(req).language);
      const path = `${req.baseUrl}/pay/link/${link.id}`;
      const page = paymentLinkPage(t, link, context.currencies, `${path}${languageQuery(req)}`);
      sendPage(res, 200, { ...page, merchant: merchant?.name ?? null, testMode: link.mode === "test" }, { t, branding, switchPath: path });
    }),
  );

  router.post(
    "/pay/link/:id",
    // The form sends no fields; the parser is here to bound and consume whatever is sent, its
    // failures (too large, malformed) answered by the error page of /pay.
    formBodyReader(options.bodyTimeoutMs ?? DEFAULT_BODY_TIMEOUT_MS),
    linkHandler(branding, async (req, res) => {
      const link = await openPaymentLink(context, linkId(req));
      const remembered = await visitors.read(req, link.id);
      const open = remembered ? await openInvoiceOfLink(context, link.id, remembered) : null;
      if (open) {
        setCommonHeaders(res);
        return res.redirect(303, `${open.paymentUrl}${languageQuery(req)}`);
      }
      admit(req, link.id);
      const invoice = await payThroughPaymentLink(context, link.id, (invoiceId) => paymentUrlFor(req, invoiceId));
      await visitors.write(req, res, link.id, invoice.id, invoice.expiresAt, context.now(), options.secure === true);
      setCommonHeaders(res);
      res.redirect(303, `${invoice.paymentUrl}${languageQuery(req)}`);
    }),
  );

  return router;
}
