import express, { type Request, type Response, type Router } from "express";
import { DEFAULT_BODY_TIMEOUT_MS } from "../../body-deadline";
import type { CoreContext } from "../../core/context";
import type { SubscriptionRecord } from "../../core/subscriptions/records";
import { cancelByPayer, openPayerSubscription, type PayerSubscription } from "../../core/subscriptions/payer";
import { PaymentError } from "../../errors";
import { asyncHandler } from "../../express/async-handler";
import { formBodyReader } from "../../express/form-body";
import { formToken, formTokenValid } from "../form-token";
import type { PayPageBranding } from "../pay-page/branding";
import { requestLanguage, translator } from "../pay-page/i18n/index";
import { setCommonHeaders } from "../../html/headers";
import { sendPage } from "../pay-page/layout";
import { subscriptionNotFoundPage, subscriptionPage } from "../pay-page/subscription-view";

/** What the payer's subscription page is configured with. */
export interface SubscriptionPageOptions {
  /** How long the cancel form's body may take to arrive, in ms (the router's `bodyTimeoutMs`). */
  bodyTimeoutMs?: number;
  /** The merchant's look on the page (the router's `payPage`). */
  branding?: PayPageBranding;
}

/** A payer token as the service issues them (40 base62 characters); anything else leads nowhere. */
const TOKEN = /^[A-Za-z0-9]{40}$/;

/** The cancel form's CSRF token's scope: keyed by the subscription's stored token hash. */
const cancelForm = (subscription: SubscriptionRecord) => ({ key: subscription.payerTokenHash, purpose: "subscription-cancel", id: subscription.id });

/**
 * The payer's page of a subscription, `/pay/subscription/:token` (mounted without a path, as its
 * links are built from `req.baseUrl`): no login, the secret link is the credential (its token is
 * stored hashed and compared in constant time). GET shows it; POST `/cancel` (a plain form with a
 * CSRF token, no JavaScript) cancels at the end of the current period when the merchant allows
 * payers to, then answers 303 back to the page.
 */
export function subscriptionPageRoutes(context: CoreContext, options: SubscriptionPageOptions = {}): Router {
  const router = express.Router();
  const branding = options.branding ?? {};

  const frame = (req: Request) => {
    const { language, chosen } = requestLanguage(req);
    const token = String(req.params.token);
    const path = `${req.baseUrl}/pay/subscription/${token}`;
    return { t: translator(language), path, query: chosen ? `?lang=${language}` : "" };
  };

  /** The subscription of the request's token, or null (its 404 page sent). */
  const load = async (req: Request, res: Response): Promise<PayerSubscription | null> => {
    const token = String(req.params.token);
    try {
      if (!TOKEN.test(token)) throw new PaymentError("not_found", "No subscription for this link.");
      return await openPayerSubscription(context, token);
    } catch (error) {
      if (!(error instanceof PaymentError) || error.type !== "not_found") throw error;
      const { t } = frame(req);
      sendPage(res, 404, subscriptionNotFoundPage(t), { t, branding, switchPath: null });
      return null;
    }
  };

  const render = async (req: Request, res: Response, status: number, loaded: PayerSubscription, notice: { tone: "ok" | "error"; text: string } | null) => {
    const { t, path, query } = frame(req);
    const { subscription } = loaded;
    const merchant = await context.storage.getMerchant(subscription.merchantId);
    const offersCancel = subscription.payerCanCancel && subscription.status !== "cancelled" && !subscription.cancelAtPeriodEnd;
    const cancel = offersCancel ? { action: `${path}/cancel${query}`, csrf: formToken(cancelForm(subscription), context.now()) } : null;
    const page = subscriptionPage(t, context.currencies, { loaded, cancel, notice });
    sendPage(res, status, { ...page, merchant: merchant?.name ?? null, testMode: subscription.mode === "test" }, { t, branding, switchPath: path });
  };

  router.get(
    "/pay/subscription/:token",
    asyncHandler(async (req, res) => {
      const loaded = await load(req, res);
      if (loaded) await render(req, res, 200, loaded, null);
    }),
  );

  router.post(
    "/pay/subscription/:token/cancel",
    formBodyReader(options.bodyTimeoutMs ?? DEFAULT_BODY_TIMEOUT_MS),
    asyncHandler(async (req, res) => {
      const loaded = await load(req, res);
      if (!loaded) return;
      const { t, path, query } = frame(req);
      const body = (req.body ?? {}) as Record<string, unknown>;
      if (!formTokenValid(cancelForm(loaded.subscription), body.csrf, context.now()))
        return render(req, res, 403, loaded, { tone: "error", text: t.text("subFormStale") });
      try {
        await cancelByPayer(context, String(req.params.token));
      } catch (error) {
        if (!(error instanceof PaymentError)) throw error;
        const current = (await load(req, res)) ?? null;
        if (!current) return;
        const text = error.type === "payer_cancel_not_allowed" ? t.text("subCancelRefused") : t.text("subOverText");
        return render(req, res, error.status, current, { tone: "error", text });
      }
      setCommonHeaders(res);
      res.redirect(303, `${path}${query}`);
    }),
  );

  return router;
}
