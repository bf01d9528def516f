import express, { type Request, type Response, type Router } from "express";
import type { CoreContext } from "../../core/context";
import type { PayoutRecord } from "../../core/payouts/records";
import {
  claimAddressValid,
  claimOpen,
  offeredNetworks,
  claimRefund,
  quoteClaim,
  RateChangedError,
  readRefundClaim,
  type ClaimQuote,
} from "../../core/refunds/claim-redeem";
import { PaymentError } from "../../errors";
import { AmountFormatError, formatDecimal, parseDecimal } from "../../money";
import { isPlainText, isPossibleId } from "../../schemas/fields";
import { asyncHandler } from "../../express/async-handler";
import { formBodyReader } from "../../express/form-body";
import { formToken, formTokenValid } from "../form-token";
import type { PayPageBranding } from "../pay-page/branding";
import { requestLanguage, translator, type Translator } from "../pay-page/i18n/index";
import { setCommonHeaders } from "../../html/headers";
import { sendPage, type Page } from "../pay-page/layout";
import { claimFormPage, claimNotFoundPage, claimReviewPage, claimStatusPage, rateText, type ClaimValues, type ShownQuote } from "../pay-page/refund-claim-view";
import { fromSameOrigin } from "./pay-page";

/** A claim link's secret as made: 32 random bytes in base64url. */
const SECRET = /^[A-Za-z0-9_-]{43}$/;
/** A network code as the form sends it. */
const NETWORK = /^[A-Za-z0-9]{1,20}$/;

/** What the claim page routes are configured with (the router's). */
export interface RefundClaimPageOptions {
  publicUrl?: string | undefined;
  bodyTimeoutMs: number;
  branding?: PayPageBranding | undefined;
}

/**
 * The hosted refund claim page, `/pay/refund/:id/:secret` (the link in a claim refund's
 * `claimUrl`): the payment page's frame, languages, CSP and escaping, and no script needed.
 * GET shows the form (or the refund's outcome once claimed, cancelled or expired); POST is the
 * form's steps: `review` checks the network and the address (the chain adapter's rule) and shows
 * what the payer receives, converted at the live rate for a fiat amount; `confirm` claims it;
 * `edit` goes back to the form with what was typed. A refused step shows the form again with
 * the payer's input and a message in their language.
 *
 * The secret is the permission: compared in constant time with its stored hash, and a wrong one
 * answers exactly as an unknown refund does. A POST must come from our own page (the payment
 * page's same-origin rule: Sec-Fetch-Site, else Origin), so another site cannot claim a refund
 * into an address of its choosing through a payer's browser, and must carry the page's CSRF token
 * (an HMAC keyed by the link's stored secret hash, valid 12 hours: a page left open too long is
 * shown again with a notice, 403, nothing claimed). Claimed at most once: the claim
 * checks and moves the refund in one transaction under its lock.
 */
export function refundClaimPageRoutes(context: CoreContext, options: RefundClaimPageOptions): Router {
  const router = express.Router();
  const publicHost = options.publicUrl ? new URL(options.publicUrl).host : null;
  const branding = options.branding ?? {};

  /** The refund a request's link names, or null (answered with the not-found page). */
  const load = async (req: Request): Promise<PayoutRecord | null> => {
    const id = String(req.params.id);
    const secret = String(req.params.secret);
    if (!isPossibleId(id) || !SECRET.test(secret)) return null;
    return readRefundClaim(context, id, secret);
  };

  /** The forms' CSRF token, keyed by the link's stored secret hash. */
  const csrf = (refund: PayoutRecord) => formToken(claimForm(refund), context.now());

  const show = async (req: Request, res: Response, status: number, refund: PayoutRecord, page: Omit<Page, "merchant">) => {
    const merchant = await context.storage.getMerchant(refund.merchantId);
    const { t } = look(req);
    sendPage(
      res,
      status,
      { ...page, merchant: merchant?.name ?? null, testMode: refund.mode === "test", reference: refund.id },
      { t, branding, switchPath: req.baseUrl + req.path },
    );
  };

  /** The form, with what the payer typed and an optional error; a fiat refund shows today's coin amount. */
  const form = async (req: Request, res: Response, status: number, refund: PayoutRecord, values: ClaimValues, error: string | null) => {
    let estimate: string | null = null;
    if (refund.claim!.fiat || values.coin !== refund.coin) {
      try {
        const quote = await quoteClaim(context, refund, values.coin, values.network);
        estimate = `${formatDecimal(quote.amount, context.currencies.decimalsOf(quote.coin) ?? 0)} ${quote.coin}`;
      } catch (failure) {
        if (!(failure instanceof PaymentError)) throw failure;
      }
    }
    await show(
      req,
      res,
      status,
      refund,
      claimFormPage(look(req).t, context.currencies, refund, { action: action(req), csrf: csrf(refund), values, estimate, error }),
    );
  };

  const outcome = async (req: Request, res: Response, status: number, refund: PayoutRecord, message: string | null = null) =>
    show(req, res, status, refund, claimStatusPage(look(req).t, context.currencies, refund, { expired: refund.status === "AWAITING_CLAIM", message }));

  const review = async (req: Request, res: Response, status: number, refund: PayoutRecord, values: ClaimValues, quote: ClaimQuote, rateChanged: boolean) =>
    show(
      req,
      res,
      status,
      refund,
      claimReviewPage(look(req).t, { action: action(req), csrf: csrf(refund), values, quote: shown(context, refund, quote), rateChanged }),
    );

  router.get(
    "/pay/refund/:id/:secret",
    asyncHandler(async (req, res) => {
      const refund = await load(req);
      if (!refund) return notFound(req, res, branding);
      if (!claimOpen(context, refund)) return outcome(req, res, 200, refund);
      await form(req, res, 200, refund, { coin: refund.coin, network: refund.claim!.networks[0]!, address: "" }, null);
    }),
  );

  router.post(
    "/pay/refund/:id/:secret",
    formBodyReader(options.bodyTimeoutMs),
    asyncHandler(async (req, res) => {
      const refund = await load(req);
      if (!refund) return notFound(req, res, branding);
      const { t } = look(req);
      const body = (req.body ?? {}) as Record<string, unknown>;
      // The form's "coin on network" select sends both as one field ("USDC:ETH"); the review's hidden fields, each apart.
      const [choiceCoin, choiceNetwork] = typeof body.choice === "string" ? body.choice.split(":", 2) : [body.coin, body.network];
      const values: ClaimValues = {
        coin: typeof choiceCoin === "string" && choiceCoin !== "" ? choiceCoin.trim().toUpperCase() : refund.coin,
        network: typeof choiceNetwork === "string" ? choiceNetwork.trim().toUpperCase() : "",
        address: typeof body.address === "string" ? body.address.trim().slice(0, 256) : "",
      };
      if (!claimOpen(context, refund)) return outcome(req, res, 409, refund, refund.claim!.claimedAt !== null ? t.text("refundAlreadyClaimed") : null);
      if (!fromSameOrigin(req, publicHost)) return form(req, res, 403, refund, values, t.text("refundForeign"));
      if (!formTokenValid(claimForm(refund), body.csrf, context.now())) return form(req, res, 403, refund, values, t.text("refundFormStale"));
      const networks = NETWORK.test(values.coin) ? offeredNetworks(refund, values.coin) : null;
      if (!networks) return form(req, res, 400, refund, { ...values, coin: refund.coin, network: refund.claim!.networks[0]! }, t.text("refundBadNetwork"));
      if (!NETWORK.test(values.network) || !networks.includes(values.network)) {
        return form(req, res, 400, refund, { ...values, network: networks[0]! }, t.text("refundBadNetwork"));
      }
      if (body.step === "edit") return form(req, res, 200, refund, values, null);
      if (values.address === "" || !isPlainText(values.address)) return form(req, res, 400, refund, values, t.text("refundNoAddress"));
      try {
        if (body.step !== "confirm") {
          if (!(await claimAddressValid(context, refund, values.coin, values.network, values.address))) {
            return form(req, res, 400, refund, values, t.text("refundBadAddress", { coin: values.coin, network: values.network }));
          }
          return review(req, res, 200, refund, values, await quoteClaim(context, refund, values.coin, values.network), false);
        }
        const confirmedAmount = confirmed(context, values.coin, body.amount);
        await claimRefund(context, refund, { coin: values.coin, network: values.network, address: values.address, confirmedAmount });
        setCommonHeaders(res);
        return res.redirect(303, `${req.baseUrl}${req.path}${languageQuery(req)}`);
      } catch (error) {
        if (error instanceof RateChangedError) return review(req, res, 409, refund, values, error.quote, true);
        if (!(error instanceof PaymentError)) throw error;
        if (error.type === "refund_claimed" || error.type === "refund_claim_closed") {
          const current = (await load(req)) ?? refund;
          return outcome(req, res, 409, current, error.type === "refund_claimed" ? t.text("refundAlreadyClaimed") : null);
        }
        return form(req, res, error.status, refund, values, payerMessage(t, error, values));
      }
    }),
  );

  return router;
}

/** The claim forms' CSRF token's scope: keyed by the link's stored secret hash, so only who holds the link can have one. */
const claimForm = (refund: PayoutRecord) => ({ key: refund.claim!.tokenHash, purpose: "refund-claim", id: refund.id });

const look = (req: Request): { t: Translator } => ({ t: translator(requestLanguage(req).language) });

/** `?lang=xx` when the payer picked a language, so the steps that follow keep it. */
function languageQuery(req: Request): string {
  const { language, chosen } = requestLanguage(req);
  return chosen ? `?lang=${language}` : "";
}

/** The form's target: this link, with the language the payer picked. */
const action = (req: Request) => `${req.baseUrl}${req.path}${languageQuery(req)}`;

function notFound(req: Request, res: Response, branding: PayPageBranding): void {
  sendPage(res, 404, claimNotFoundPage(look(req).t), { t: look(req).t, branding, switchPath: null });
}

/** A quote as decimal strings. */
function shown(context: CoreContext, refund: PayoutRecord, quote: ClaimQuote): ShownQuote {
  return {
    coin: quote.coin,
    network: quote.network,
    amount: formatDecimal(quote.amount, context.currencies.decimalsOf(quote.coin) ?? 0),
    rate: quote.rate === null ? null : rateText(refund, { coin: quote.coin, rate: quote.rate }),
  };
}

/** The amount the payer confirmed (the review's hidden field) in smallest units; a form without a readable one confirms nothing, so its claim is refused as a changed rate and shown again. */
function confirmed(context: CoreContext, coin: string, value: unknown): bigint {
  if (typeof value !== "string") return -1n;
  try {
    return parseDecimal(value, context.currencies.decimalsOf(coin) ?? 0);
  } catch (error) {
    if (error instanceof AmountFormatError) return -1n;
    throw error;
  }
}

/** What the payer reads when a claim is refused: the core's messages are written for merchant developers. */
function payerMessage(t: Translator, error: PaymentError, values: ClaimValues): string {
  switch (error.type) {
    case "invalid_address":
      return t.text("refundBadAddress", { coin: values.coin, network: values.network });
    case "token_contract_destination":
      return t.text("refundTokenContract", { coin: values.coin, network: values.network });
    case "destination_not_allowed":
      return t.text("refundRefused");
    case "chain_unavailable":
    case "pricing_unavailable":
    case "hot_wallet_insufficient":
      return t.text("refundUnavailable");
    default:
      return t.text("refundFailed");
  }
}
