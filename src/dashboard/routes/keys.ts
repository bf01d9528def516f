import type { Request, Response, Router } from "express";
import type { Mode } from "../../core/merchants/records";
import { asyncHandler } from "../../express/async-handler";
import type { DashboardKit, Notice } from "../kit";
import { keysBody } from "../pages/keys";

/** The merchant's API keys: listed without secrets; admins issue (shown once) and revoke. */
export function keyRoutes(router: Router, kit: DashboardKit): void {
  const { admin } = kit.backend;

  const showKeys = async (req: Request, res: Response, status: number, extra: { issued?: string; message?: Notice } = {}) => {
    const keys = await admin.listApiKeys(kit.merchant(req).id);
    const body = keysBody({ base: kit.merchantBase(req), keys, csrf: kit.formToken(req), issued: extra.issued ?? null, message: extra.message ?? null });
    await kit.send(req, res, status, { title: "API keys", body, section: "keys" });
  };

  router.get(
    "/m/:merchantId/keys",
    asyncHandler((req, res) => showKeys(req, res, 200)),
  );

  router.post(
    "/m/:merchantId/keys",
    asyncHandler(async (req, res) => {
      const mode = (req.body as Record<string, unknown>).mode;
      if (mode !== "test" && mode !== "live") return showKeys(req, res, 400, { message: { tone: "error", text: 'Mode must be "test" or "live".' } });
      const issued = await admin.issueApiKey(kit.merchant(req).id, { mode: mode as Mode, by: kit.actor(req) });
      await showKeys(req, res, 200, { issued: issued.key, message: { tone: "ok", text: `Key ${issued.prefix}… issued.` } });
    }),
  );

  router.post(
    "/m/:merchantId/keys/:keyId/revoke",
    asyncHandler(async (req, res) => {
      const keys = await admin.listApiKeys(kit.merchant(req).id);
      // Another merchant's key id answers as unknown: revoking is scoped like reading.
      const key = keys.find((entry) => entry.id === req.params.keyId);
      if (!key) return kit.notFound(req, res, "keys");
      await admin.revokeApiKey(key.id, { by: kit.actor(req) });
      await showKeys(req, res, 200, { message: { tone: "ok", text: `Key ${key.prefix}… revoked.` } });
    }),
  );
}
