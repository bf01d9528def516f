import type { Request, Response, Router } from "express";
import { asyncHandler } from "../../express/async-handler";
import type { DashboardKit, Notice } from "../kit";
import { addressesBody } from "../pages/addresses";
import { shortTime } from "../pages/parts";

/**
 * The merchant's payout allowlist: its switch and addresses for everyone who may see the
 * merchant; admins turn it on or off, propose, approve and remove addresses, each action under
 * the dashboard user's name (so the one who proposed an address cannot approve it).
 */
export function addressRoutes(router: Router, kit: DashboardKit): void {
  const { backend } = kit;
  const { admin } = backend;
  const networks = [...new Set(backend.currencies.currencies.flatMap((currency) => currency.networks.map((network) => network.network)))];

  const showAddresses = async (req: Request, res: Response, status: number, message: Notice | null = null) => {
    const merchant = (await admin.getMerchant(kit.merchant(req).id)) ?? kit.merchant(req);
    const body = addressesBody({
      base: kit.merchantBase(req),
      enabled: merchant.payoutAllowlist,
      coolingOffHours: backend.allowlistCoolingOffHours,
      addresses: await admin.listAllowedAddresses(merchant.id),
      networks,
      csrf: kit.formToken(req),
      message,
    });
    await kit.send(req, res, status, { title: "Payout addresses", body, section: "addresses" });
  };

  /** Runs an action; shows the page with its notice, or with the refusal's status and message. */
  const act = async (req: Request, res: Response, work: () => Promise<string>) => {
    const done = await kit.attempt(work);
    await showAddresses(req, res, done.ok ? 200 : done.status, done.ok ? { tone: "ok", text: done.value } : done.notice);
  };

  /** The entry with the route's id when it is this merchant's; another merchant's answers 404 like a missing one. */
  const entryOf = async (req: Request) => {
    const id = String(req.params.addressId);
    return (await admin.listAllowedAddresses(kit.merchant(req).id)).find((entry) => entry.id === id) ?? null;
  };

  router.get(
    "/m/:merchantId/addresses",
    asyncHandler((req, res) => showAddresses(req, res, 200)),
  );

  router.post(
    "/m/:merchantId/addresses/allowlist",
    asyncHandler(async (req, res) => {
      const enabled = (req.body as Record<string, unknown>).enabled;
      if (enabled !== "on" && enabled !== "off") return showAddresses(req, res, 400, { tone: "error", text: 'enabled must be "on" or "off".' });
      await act(req, res, async () => {
        await admin.setAllowlist(kit.merchant(req).id, { enabled: enabled === "on", by: kit.actor(req) });
        return enabled === "on" ? "The allowlist is on." : "The allowlist is off.";
      });
    }),
  );

  router.post(
    "/m/:merchantId/addresses",
    asyncHandler(async (req, res) => {
      const form = req.body as Record<string, unknown>;
      const field = (name: string) => (typeof form[name] === "string" ? (form[name] as string) : "");
      const mode = field("mode");
      if (mode !== "test" && mode !== "live") return showAddresses(req, res, 400, { tone: "error", text: 'Mode must be "test" or "live".' });
      await act(req, res, async () => {
        const added = await admin.addAllowedAddress({
          merchantId: kit.merchant(req).id,
          mode,
          network: field("network"),
          address: field("address"),
          label: field("label").trim() || null,
          by: kit.actor(req),
        });
        return `${added.address} (${added.network}, ${added.mode}) was proposed; another admin must approve it.`;
      });
    }),
  );

  router.post(
    "/m/:merchantId/addresses/:addressId/approve",
    asyncHandler(async (req, res) => {
      const entry = await entryOf(req);
      if (!entry) return kit.notFound(req, res, "addresses");
      // Core refuses it too; here the notice can speak to the user.
      if (entry.proposedBy === kit.actor(req)) {
        return showAddresses(req, res, 403, { tone: "error", text: `You proposed ${entry.address}: another admin must approve it.` });
      }
      await act(req, res, async () => {
        const approved = await admin.approveAllowedAddress(entry.id, { by: kit.actor(req) });
        return `${approved.address} (${approved.network}, ${approved.mode}) was approved; it becomes usable at ${shortTime(approved.usableAt!)}.`;
      });
    }),
  );

  router.post(
    "/m/:merchantId/addresses/:addressId/remove",
    asyncHandler(async (req, res) => {
      const entry = await entryOf(req);
      if (!entry) return kit.notFound(req, res, "addresses");
      await act(req, res, async () => {
        const removed = await admin.removeAllowedAddress(entry.id, { by: kit.actor(req) });
        return `${removed.address} (${removed.network}, ${removed.mode}) was removed.`;
      });
    }),
  );
}
