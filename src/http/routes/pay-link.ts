import type { RequestHandler } from "express";
import type { CoreContext } from "../../core/context";
import { visitPaymentLink } from "../../core/payment-links";
import { PaymentError } from "../../errors";
import { isPossibleId } from "../../schemas/fields";

/** Statuses and one-line explanations for a visit that cannot become an invoice. */
function refusal(error: unknown): { status: number; text: string } | null {
  if (!(error instanceof PaymentError)) return null;
  if (error.type === "not_found") return { status: 404, text: "This payment link does not exist." };
  if (error.type === "invalid_state") return { status: 410, text: "This payment link is no longer active." };
  if (error.status === 503) return { status: 503, text: "Payments are unavailable right now. Please try again later." };
  return { status: error.status, text: "This payment link cannot be used right now." };
}

/**
 * GET /pay/link/:id, public: each visit creates a fresh hosted invoice from the link's settings
 * and sends the payer to its page (303, so a reload of the page does not create another).
 */
export function payLinkHandler(context: CoreContext, paymentUrlFor: (req: Parameters<RequestHandler>[0], invoiceId: string) => string): RequestHandler {
  return async (req, res, next) => {
    // Express answers HEAD with the GET handler; a link checker or preview bot must not open
    // an invoice for every probe.
    if (req.method === "HEAD") return void res.status(200).setHeader("Cache-Control", "no-store").end();
    try {
      // An id that cannot be one of ours (NUL, another alphabet) is unknown, not a storage error.
      if (!isPossibleId(String(req.params.id))) throw new PaymentError("not_found", "No payment link with this id.");
      const invoice = await visitPaymentLink(context, String(req.params.id), (invoiceId) => paymentUrlFor(req, invoiceId));
      res.setHeader("Cache-Control", "no-store");
      res.redirect(303, invoice.paymentUrl);
    } catch (error) {
      const answer = refusal(error);
      if (!answer) return next(error);
      res.status(answer.status).setHeader("Cache-Control", "no-store").type("text/plain; charset=utf-8").send(`${answer.text}\n`);
    }
  };
}
