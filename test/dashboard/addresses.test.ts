import request from "supertest";
import { afterEach, describe, expect, it } from "vitest";
import type { Harness } from "../helpers";
import { ADDRESS, balances, paidPayment } from "../http/v1/support";
import { dashboardHost } from "./host";

/**
 * The payout addresses page over HTTP: the allowlist's switch and addresses for every reader,
 * the admins' actions under their own names (the proposer cannot approve), merchant scope on
 * every action, and viewers and forged forms changing nothing.
 */

let h: Harness;
afterEach(async () => h?.router.close());

const page = (path: string, login = "admin") => request(h.app).get(`/admin${path}`).set("x-login", login);
const form = (path: string, fields: Record<string, string>, login = "admin") =>
  request(h.app).post(`/admin${path}`).set("x-login", login).type("form").send(fields);
const tokenOf = (html: string) => /name="_csrf" value="([^"]+)"/.exec(html)![1]!;
const tokenFor = async (login: string, merchantId = h.merchant.id) => tokenOf((await page(`/m/${merchantId}/addresses`, login)).text);
/** The page's main content (the nonce of its style differs per response). */
const mainOf = (html: string) => /<main[\s\S]*<\/main>/.exec(html)![0];
/** The state cell of an address's row. */
const stateOf = (html: string, id: string) => new RegExp(`data-address="${id}">[\\s\\S]*?data-state="([a-z_]+)">([^<]*)<`).exec(html)?.slice(1);

describe("dashboard: payout addresses", () => {
  it("shows the switch and every address of both modes with its state, in the navigation, with no forms for viewers", async () => {
    h = await dashboardHost();
    const proposed = await h.router.admin.addAllowedAddress({
      merchantId: h.merchant.id,
      mode: "test",
      network: "TRX",
      address: ADDRESS,
      label: "<b>Cold</b>",
      by: "user_alice",
    });
    const live = await h.router.admin.addAllowedAddress({ merchantId: h.merchant.id, mode: "live", network: "TRX", address: ADDRESS, by: "user_alice" });
    await h.router.admin.approveAllowedAddress(live.id, { by: "user_bob" });

    const viewer = await page(`/m/${h.merchant.id}/addresses`, "viewer");
    expect(viewer.status).toBe(200);
    expect(viewer.text).toContain('aria-current="page">Payout addresses</a>');
    expect(viewer.text).toContain('data-allowlist="off"');
    expect(viewer.text).toContain("&lt;b&gt;Cold&lt;/b&gt;");
    expect(viewer.text).not.toContain("<b>Cold</b>");
    expect(stateOf(viewer.text, proposed.id)).toEqual(["awaiting_approval", "Awaiting approval"]);
    expect(stateOf(viewer.text, live.id)).toEqual(["cooling_off", "Cooling off until 2026-03-02 12:00 UTC"]);
    expect(viewer.text).toMatch(
      /<span class="tag live">live<\/span>[\s\S]*<span class="tag test">test<\/span>|<span class="tag test">test<\/span>[\s\S]*<span class="tag live">live<\/span>/,
    );
    expect(viewer.text).not.toContain("_csrf");
    expect(viewer.text).toContain("Viewers cannot change the allowlist.");

    h.clock.advanceMinutes(24 * 60);
    expect(stateOf((await page(`/m/${h.merchant.id}/addresses`)).text, live.id)).toEqual(["usable", "Usable"]);
    // The other merchant's page lists none of these.
    expect((await page(`/m/${h.other.id}/addresses`)).text).toContain("No addresses yet.");
  });

  it("lets admins turn it on, propose, approve (someone else's only) and remove, under their own names", async () => {
    h = await dashboardHost();
    await paidPayment(h, "100");
    const ada = await tokenFor("admin");
    const on = await form(`/m/${h.merchant.id}/addresses/allowlist`, { _csrf: ada, enabled: "on" });
    expect(on.status).toBe(200);
    expect(on.text).toContain("The allowlist is on.");
    expect(on.text).toContain('data-allowlist="on"');
    expect((await h.router.admin.getMerchant(h.merchant.id))?.payoutAllowlist).toBe(true);

    const proposed = await form(`/m/${h.merchant.id}/addresses`, { _csrf: ada, mode: "test", network: "TRX", address: ADDRESS, label: "Supplier" });
    expect(proposed.status, proposed.text).toBe(200);
    expect(proposed.text).toContain("was proposed; another admin must approve it.");
    const [entry] = await h.router.admin.listAllowedAddresses(h.merchant.id);
    expect(entry).toMatchObject({
      mode: "test",
      network: "TRX",
      address: ADDRESS,
      label: "Supplier",
      proposedBy: "dashboard:ada@shop.example",
      state: "awaiting_approval",
    });

    const own = await form(`/m/${h.merchant.id}/addresses/${entry!.id}/approve`, { _csrf: ada });
    expect(own.status).toBe(403);
    expect(own.text).toContain(`You proposed ${ADDRESS}: another admin must approve it.`);
    expect((await h.router.admin.listAllowedAddresses(h.merchant.id))[0]!.state).toBe("awaiting_approval");

    const lee = await tokenFor("limited");
    const approved = await form(`/m/${h.merchant.id}/addresses/${entry!.id}/approve`, { _csrf: lee }, "limited");
    expect(approved.status).toBe(200);
    expect(approved.text).toContain("was approved; it becomes usable at 2026-03-02 12:00 UTC.");
    expect(stateOf(approved.text, entry!.id)![0]).toBe("cooling_off");
    const withdraw = () => h.post("/v1/withdrawals", { currency: "USDT", chain: "TRX", amount: "10", address: ADDRESS });
    expect((await withdraw()).body.error).toBe(42204);
    h.clock.advanceMinutes(24 * 60);
    expect((await withdraw()).status).toBe(200);

    // A day later, the earlier form tokens have expired: a fresh page gives a new one.
    const removed = await form(`/m/${h.merchant.id}/addresses/${entry!.id}/remove`, { _csrf: await tokenFor("admin") });
    expect(removed.status).toBe(200);
    expect(removed.text).toContain("was removed.");
    expect(removed.text).toContain("No addresses yet.");
    expect((await withdraw()).body.error).toBe(42204);
    expect((await balances(h)).USDT!.available).toBe("87.5");

    const actions = (await h.router.admin.listAuditLog({ merchantId: h.merchant.id })).entries
      .filter((row) => !row.action.startsWith("api_key."))
      .map((row) => `${row.action} ${row.actor}`);
    expect(actions.sort()).toEqual([
      "payout_address.added dashboard:ada@shop.example",
      "payout_address.approved dashboard:lee@shop.example",
      "payout_address.removed dashboard:ada@shop.example",
      "payout_allowlist.enabled dashboard:ada@shop.example",
    ]);
  });

  it("shows a refused proposal with the API's message and changes nothing", async () => {
    h = await dashboardHost();
    const token = await tokenFor("admin");
    const invalid = await form(`/m/${h.merchant.id}/addresses`, { _csrf: token, mode: "test", network: "ETH", address: ADDRESS });
    expect(invalid.status).toBe(400);
    expect(invalid.text).toContain(`&quot;${ADDRESS}&quot; is not a valid address on ETH.`);
    expect((await form(`/m/${h.merchant.id}/addresses`, { _csrf: token, mode: "gold", network: "TRX", address: ADDRESS })).status).toBe(400);
    expect((await form(`/m/${h.merchant.id}/addresses`, { _csrf: token, mode: "test", network: "NOPE", address: ADDRESS })).status).toBe(400);
    expect((await form(`/m/${h.merchant.id}/addresses/allowlist`, { _csrf: token, enabled: "maybe" })).status).toBe(400);
    expect(await h.router.admin.listAllowedAddresses(h.merchant.id)).toEqual([]);
    expect((await h.router.admin.getMerchant(h.merchant.id))?.payoutAllowlist).toBe(false);
  });

  it("answers 404 for another merchant's address, exactly as for a missing one, and changes nothing", async () => {
    h = await dashboardHost();
    const theirs = await h.router.admin.addAllowedAddress({ merchantId: h.other.id, mode: "test", network: "TRX", address: ADDRESS, by: "user_alice" });
    const ada = await tokenFor("admin");
    const lee = await tokenFor("limited");
    const missing = await form(`/m/${h.merchant.id}/addresses/pad_missing/approve`, { _csrf: ada });
    expect(missing.status).toBe(404);
    for (const verb of ["approve", "remove"]) {
      const viaMine = await form(`/m/${h.merchant.id}/addresses/${theirs.id}/${verb}`, { _csrf: ada });
      expect(viaMine.status).toBe(404);
      expect(mainOf(viaMine.text)).toBe(mainOf(missing.text));
      expect((await form(`/m/${h.other.id}/addresses/${theirs.id}/${verb}`, { _csrf: lee }, "limited")).status).toBe(404);
      expect((await form(`/m/${h.merchant.id}/addresses/${theirs.id}/${verb}`, { _csrf: lee }, "limited")).status).toBe(404);
    }
    expect((await form(`/m/${h.other.id}/addresses/allowlist`, { _csrf: lee, enabled: "on" }, "limited")).status).toBe(404);
    expect(await h.router.admin.listAllowedAddresses(h.other.id)).toMatchObject([{ id: theirs.id, state: "awaiting_approval" }]);
    expect((await h.router.admin.getMerchant(h.other.id))?.payoutAllowlist).toBe(false);
  });

  it("refuses every action of a viewer (403) and every form without this user's token, and changes nothing", async () => {
    h = await dashboardHost();
    const entry = await h.router.admin.addAllowedAddress({ merchantId: h.merchant.id, mode: "test", network: "TRX", address: ADDRESS, by: "user_alice" });
    const ada = await tokenFor("admin");
    const posts: Array<[string, Record<string, string>]> = [
      [`/m/${h.merchant.id}/addresses/allowlist`, { enabled: "on" }],
      [`/m/${h.merchant.id}/addresses`, { mode: "test", network: "TRX", address: "TQjw9LfWkygUMPoV5tvokXQX2YLdStctTe" }],
      [`/m/${h.merchant.id}/addresses/${entry.id}/approve`, {}],
      [`/m/${h.merchant.id}/addresses/${entry.id}/remove`, {}],
    ];
    for (const [path, fields] of posts) {
      expect((await form(path, { ...fields, _csrf: ada }, "viewer")).status, path).toBe(403);
      expect((await form(path, fields)).status, path).toBe(403);
      expect((await form(path, { ...fields, _csrf: ada }, "limited")).status, path).toBe(403);
    }
    expect(await h.router.admin.listAllowedAddresses(h.merchant.id)).toMatchObject([{ id: entry.id, state: "awaiting_approval" }]);
    expect((await h.router.admin.getMerchant(h.merchant.id))?.payoutAllowlist).toBe(false);
  });
});
