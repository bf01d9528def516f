import type express from "express";
import type { Express } from "express";
import type { DashboardUser } from "../../src/index";
import { setup, type Harness } from "../helpers";

/**
 * A host app mounting the dashboard at /admin behind a fake login: the `x-login` header (or
 * `login` cookie, for the browser) names one of the users below; anyone else is refused by
 * `authorize` returning null. "limited" sees only the harness's first merchant, "both" its two, "none" none.
 */
export const EXPLORERS = { TRX: { tx: "https://tronscan.example/#/transaction/{txHash}", address: "https://tronscan.example/#/address/{address}" } };

/** The users the fake login knows, by name. */
export function users(h: Harness): Record<string, DashboardUser> {
  return {
    admin: { user: "ada@shop.example", role: "admin", merchants: "all" },
    viewer: { user: "vic@shop.example", role: "viewer", merchants: "all" },
    limited: { user: "lee@shop.example", role: "admin", merchants: [h.merchant.id] },
    both: { user: "bo@shop.example", role: "viewer", merchants: [h.other.id, h.merchant.id] },
    none: { user: "nat@shop.example", role: "viewer", merchants: [] },
  };
}

/** The harness of test/helpers (with these router options) and the dashboard mounted on its app at /admin. */
export async function dashboardHost(options: Parameters<typeof setup>[0] = {}): Promise<Harness & { app: Express }> {
  const h = await setup(options);
  const known = users(h);
  const login = (req: express.Request) => {
    const cookie = /(?:^|;\s*)login=([a-z]+)/.exec(req.get("cookie") ?? "")?.[1];
    return known[req.get("x-login") ?? cookie ?? ""] ?? null;
  };
  h.app.use("/admin", h.router.dashboard({ authorize: login, explorers: EXPLORERS }));
  return h;
}
