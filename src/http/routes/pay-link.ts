import express, { type Request, type RequestHandler, type Response, type Router } from "express";
import type { CoreContext } from "../../core/context";
import { openPaymentLink, payThroughPaymentLink } from "../../core/payment-links";
import { PaymentError } from "../../errors";
import { isPossibleId } from "../../schemas/fields";
import { asyncHandler } from "../async-handler";
import { sendPage, setCommonHeaders } from "../pay-page/layout";
import { paymentLinkPage, paymentLinkRefusalPage } from "../pay-page/link-view";

/** Statuses and one-line explanations for a link that cannot be shown or paid. */
function refusal(error: unknown): { status: number; title: string; text: string } | null {
  if (!(error instanceof PaymentError)) return null;
  if (error.type === "not_found") return { status: 404, title: "Payment link not found", text: "This payment link does not exist." };
  if (error.type === "invalid_state") return { status: 410, title: "Payment link inactive", text: "This payment link is no longer active." };
  if (error.status === 503) return { status: 503, title: "Payments unavailable", text: "Payments are unavailable right now. Please try again later." };
  return { status: error.status, title: "Payment link unavailable", text: "This payment link cannot be used right now." };
}

/** A handler of the link's URL whose refusals are answered with our page; anything else goes on to the error handler of /pay. */
function linkHandler(work: (req: Request, res: Response) => Promise<void>): RequestHandler {
  return asyncHandler(async (req, res, next) => {
    try {
      await work(req, res);
    } catch (error) {
      const answer = refusal(error);
      if (!answer) return next(error);
      sendPage(res, answer.status, paymentLinkRefusalPage(answer.title, answer.text));
    }
  });
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
 * (the page's button, a plain form that needs no JavaScript) creates a fresh hosted invoice and
 * answers 303 to its page, so a reload of that page does not create another.
 *
 * The POST takes no CSRF token and no Origin check, on purpose: it needs no credentials and
 * acts for nobody, so a post from another site can do nothing that anyone could not do with
 * the public link itself; it creates one unpaid invoice that expires.
 */
export function payLinkRoutes(context: CoreContext, paymentUrlFor: (req: Request, invoiceId: string) => string): Router {
  const router = express.Router();

  router.get(
    "/pay/link/:id",
    linkHandler(async (req, res) => {
      const link = await openPaymentLink(context, linkId(req));
      const merchant = await context.storage.getMerchant(link.merchantId);
      const page = paymentLinkPage(link, context.currencies, `${req.baseUrl}/pay/link/${link.id}`);
      sendPage(res, 200, { ...page, merchant: merchant?.name ?? null, testMode: link.mode === "test" });
    }),
  );

  router.post(
    "/pay/link/:id",
    // The form sends no fields; the parser is here to bound and consume whatever is sent, its
    // failures (too large, malformed) answered by the error page of /pay.
    express.urlencoded({ extended: false, limit: "2kb", parameterLimit: 10 }),
    linkHandler(async (req, res) => {
      const invoice = await payThroughPaymentLink(context, linkId(req), (invoiceId) => paymentUrlFor(req, invoiceId));
      setCommonHeaders(res);
      res.redirect(303, invoice.paymentUrl);
    }),
  );

  return router;
}
