import request from "supertest";
import { afterEach, describe, expect, it } from "vitest";
import type { Harness } from "../helpers";
import { get } from "../http/v1/support";
import { dashboardHost } from "./host";
import { startVerifyingReceiver, type VerifyingReceiver } from "./webhook-receiver";

/**
 * Webhook endpoints managed from the dashboard over HTTP: registering one (its secret shown on
 * that answer only), its page and actions, a delivery's page with its attempts, and who may
 * do what: viewers, forged forms, another merchant's ids and the other mode's.
 */

let h: Harness;
let receiver: VerifyingReceiver | undefined;
afterEach(async () => {
  await receiver?.close();
  receiver = undefined;
  await h?.router.close();
});

const page = (path: string, login = "admin") => request(h.app).get(`/admin${path}`).set("x-login", login);
/** Posts a form as a browser would: repeated fields (several event types) stay repeated. */
const form = (path: string, fields: Array<[string, string]> | Record<string, string>, login = "admin") =>
  request(h.app).post(`/admin${path}`).set("x-login", login).type("form").send(new URLSearchParams(fields).toString());
const tokenOf = (html: string) => /name="_csrf" value="([^"]+)"/.exec(html)![1]!;
const secretOf = (html: string) => /data-secret>(whsec_[A-Za-z0-9+/=]+)</.exec(html)?.[1];
const endpointsOf = async (key = h.testKey) => (await get(h, "/v1/webhook-endpoints", key)).body.data as Array<Record<string, unknown>>;
const storedSecrets = async (id: string, mode: "test" | "live" = "test") =>
  (await h.router.storage.getWebhookEndpoint({ merchantId: h.merchant.id, mode }, id))?.secrets.map((entry) => entry.secret) ?? null;

/** Registers an endpoint through the dashboard's form; answers its id, secret and the answer page. */
async function addEndpoint(url: string, mode: "test" | "live" = "test", events: string[] = []) {
  const token = tokenOf((await page(`/m/${h.merchant.id}/webhooks`)).text);
  const res = await form(`/m/${h.merchant.id}/webhooks/endpoints`, [
    ["_csrf", token],
    ["url", url],
    ["mode", mode],
    ...events.map((type): [string, string] => ["events", type]),
  ]);
  expect(res.status, res.text).toBe(200);
  const id = /<dt>Id<\/dt><dd class="mono">(we_[A-Za-z0-9]+)</.exec(res.text)![1]!;
  return { id, secret: secretOf(res.text)!, text: res.text, token };
}

describe("webhook endpoints in the dashboard", () => {
  it("records each change of an endpoint in the audit log under whoever asked: a dashboard user or an API key", async () => {
    h = await dashboardHost();
    const added = await addEndpoint("https://hooks.shop.example/audited");
    const base = `/m/${h.merchant.id}/webhooks/endpoints/${added.id}`;
    // A minute between changes, so the log's newest-first order is theirs.
    for (const action of ["rotate", "disable", "enable", "delete"]) {
      h.clock.advanceMinutes(1);
      expect((await form(`${base}/${action}`, { _csrf: added.token, mode: "test" })).status).toBeLessThan(400);
    }
    h.clock.advanceMinutes(1);
    const byKey = await h.post("/v1/webhook-endpoints", { url: "https://hooks.shop.example/by-key" });
    h.clock.advanceMinutes(1);
    await h.post(`/v1/webhook-endpoints/${byKey.body.id}/disable`, {});
    const log = (await h.router.admin.listAuditLog({ merchantId: h.merchant.id })).entries.filter((entry) => entry.action.startsWith("webhook_endpoint."));
    // The API key that asked: the harness's test key.
    const key = log.find((entry) => entry.recordId === byKey.body.id)!.actor;
    expect(key).toMatch(/^key_/);
    expect(log.map((entry) => [entry.action, entry.recordId, entry.actor, entry.mode]).reverse()).toEqual([
      ["webhook_endpoint.created", added.id, "dashboard:ada@shop.example", "test"],
      ["webhook_endpoint.secret_rotated", added.id, "dashboard:ada@shop.example", "test"],
      ["webhook_endpoint.disabled", added.id, "dashboard:ada@shop.example", "test"],
      ["webhook_endpoint.enabled", added.id, "dashboard:ada@shop.example", "test"],
      ["webhook_endpoint.deleted", added.id, "dashboard:ada@shop.example", "test"],
      ["webhook_endpoint.created", byKey.body.id, key, "test"],
      ["webhook_endpoint.disabled", byKey.body.id, key, "test"],
    ]);
    // Never a URL or a secret in the log.
    expect(JSON.stringify(log)).not.toMatch(/whsec_|hooks\.shop\.example/);
    const page = await request(h.app).get(`/admin/m/${h.merchant.id}/audit`).set("x-login", "viewer");
    expect(page.text).toContain("Rotated a webhook endpoint&#39;s secret");
    expect(page.text).toContain(`Endpoint <code>${added.id}</code>`);
    expect(page.text).toContain(`href="/admin/m/${h.merchant.id}/webhooks/endpoints/${byKey.body.id}"`);
  });

  it("adds one endpoint when the form is sent twice, and says where its secret went on the second answer", async () => {
    h = await dashboardHost();
    const shown = (await page(`/m/${h.merchant.id}/webhooks`)).text;
    const fields: Array<[string, string]> = [
      ["_csrf", tokenOf(shown)],
      ["_once", /name="_once" value="([0-9a-f-]{36})"/.exec(shown)![1]!],
      ["url", "https://hooks.shop.example/twice"],
      ["mode", "test"],
    ];
    const first = await form(`/m/${h.merchant.id}/webhooks/endpoints`, fields);
    const second = await form(`/m/${h.merchant.id}/webhooks/endpoints`, fields);
    expect([first.status, second.status]).toEqual([200, 200]);
    expect(secretOf(first.text)).toMatch(/^whsec_/);
    expect(second.text).not.toContain("whsec_");
    expect(second.text).toContain("its signing secret was shown on that answer only. Rotate the secret to get a new one.");
    expect((await endpointsOf()).map((endpoint) => endpoint.url)).toEqual(["https://hooks.shop.example/twice"]);
  });

  it("adds an endpoint from the form with chosen event types, shows its secret on that answer only, and the API has it", async () => {
    h = await dashboardHost();
    const added = await addEndpoint("https://hooks.shop.example/pay", "test", ["payment.completed", "refund.failed"]);
    expect(added.secret).toMatch(/^whsec_/);
    expect(added.text).toContain("never shown again");
    expect(await endpointsOf()).toEqual([
      expect.objectContaining({ id: added.id, url: "https://hooks.shop.example/pay", events: ["payment.completed", "refund.failed"] }),
    ]);
    expect(await storedSecrets(added.id)).toEqual([added.secret]);
    // Never again: not in the list, not on its page, not for a viewer.
    for (const [path, login] of [
      [`/m/${h.merchant.id}/webhooks`, "admin"],
      [`/m/${h.merchant.id}/webhooks/endpoints/${added.id}`, "admin"],
      [`/m/${h.merchant.id}/webhooks/endpoints/${added.id}`, "viewer"],
      [`/m/${h.merchant.id}`, "admin"],
    ]) {
      const res = await page(path!, login);
      expect(res.status, path).toBe(200);
      expect(res.text, path).not.toContain(added.secret);
      expect(res.text, path).not.toContain("whsec_");
    }
    const detail = await page(`/m/${h.merchant.id}/webhooks/endpoints/${added.id}`);
    expect(detail.text).toContain("<code>payment.completed</code>, <code>refund.failed</code>");

    // No box ticked: every event type. A live endpoint goes to the live mode.
    const live = await addEndpoint("https://hooks.shop.example/live", "live");
    expect(await endpointsOf(h.liveKey)).toEqual([expect.objectContaining({ id: live.id, livemode: true, events: null })]);
    expect(live.text).toContain("Every event type");
    const listing = await page(`/m/${h.merchant.id}/webhooks`);
    expect([...listing.text.matchAll(/data-endpoint="([^"]+)"/g)].map((match) => match[1]).sort()).toEqual([added.id, live.id].sort());
    expect(listing.text).toContain(`href="/admin/m/${h.merchant.id}/webhooks/endpoints/${added.id}"`);
  });

  it("refuses a private URL with the API's message, keeps what was typed, and creates nothing", async () => {
    h = await dashboardHost({ webhooks: { allowPrivateUrls: false } });
    const api = await h.post("/v1/webhook-endpoints", { url: "http://127.0.0.1:9/hook" });
    expect(api.status).toBe(400);
    const token = tokenOf((await page(`/m/${h.merchant.id}/webhooks`)).text);
    const res = await form(`/m/${h.merchant.id}/webhooks/endpoints`, [
      ["_csrf", token],
      ["url", "http://127.0.0.1:9/hook"],
      ["mode", "live"],
      ["events", "payment.failed"],
    ]);
    expect(res.status).toBe(400);
    expect(res.text).toContain(`<p class="notice error" role="alert">${api.body.message}</p>`);
    expect(res.text).toContain('value="http://127.0.0.1:9/hook"');
    expect(res.text).toContain('<option value="live" selected>');
    expect(res.text).toContain('value="payment.failed" checked');
    expect(res.text).not.toContain("whsec_");
    const badMode = await form(`/m/${h.merchant.id}/webhooks/endpoints`, { _csrf: token, url: "https://hooks.shop.example/x", mode: "gold" });
    expect(badMode.status).toBe(400);
    const badType = await form(`/m/${h.merchant.id}/webhooks/endpoints`, {
      _csrf: token,
      url: "https://hooks.shop.example/x",
      mode: "test",
      events: "payment.nope",
    });
    expect(badType.status).toBe(400);
    expect(badType.text).toContain("events");
    expect(await endpointsOf()).toEqual([]);
    expect(await endpointsOf(h.liveKey)).toEqual([]);
  });

  it("rotates the secret from the endpoint's page: the next delivery verifies with the new secret at a real receiver, and the delivery page shows every attempt", async () => {
    h = await dashboardHost();
    receiver = await startVerifyingReceiver(h);
    const added = await addEndpoint(receiver.url);
    receiver.trust(added.secret);
    const base = `/m/${h.merchant.id}/webhooks/endpoints/${added.id}`;

    // A test event, clicked from the endpoint's page, verifies with the first secret.
    const sent = await form(`${base}/test`, { _csrf: added.token, mode: "test" });
    expect(sent.status).toBe(200);
    const firstDelivery = /Test event queued as delivery (msg_[A-Za-z0-9]+)/.exec(sent.text)![1]!;
    await h.router.tick();
    expect(receiver.events.map((event) => [event.type, (event.data as { test?: boolean }).test])).toEqual([["payment.created", true]]);
    expect((await page(base)).text).toMatch(new RegExp(`data-delivery="${firstDelivery}"[\\s\\S]*?data-delivery-status>succeeded<`));

    const rotated = await form(`${base}/rotate`, { _csrf: added.token, mode: "test" });
    expect(rotated.status).toBe(200);
    const newSecret = secretOf(rotated.text)!;
    expect(newSecret).toMatch(/^whsec_/);
    expect(newSecret).not.toBe(added.secret);
    expect(rotated.text).not.toContain(added.secret);
    expect((await page(base)).text).not.toContain("whsec_");
    expect((await storedSecrets(added.id))![0]).toBe(newSecret);

    // Past the overlap only the new secret signs: the receiver still on the old one refuses.
    h.clock.advanceMinutes(24 * 60 + 1);
    // This time of another type, chosen in the form's select; a made-up type is refused with the API's message.
    expect((await page(base)).text).toContain('<option value="refund.completed">refund.completed</option>');
    const madeUp = await form(`${base}/test`, { _csrf: tokenOf((await page(base)).text), mode: "test", type: "refund.exploded" });
    expect(madeUp.status).toBe(400);
    expect(madeUp.text).toContain('class="notice error"');
    const again = await form(`${base}/test`, { _csrf: tokenOf((await page(base)).text), mode: "test", type: "refund.completed" });
    const delivery = /Test event queued as delivery (msg_[A-Za-z0-9]+)/.exec(again.text)![1]!;
    await h.router.tick();
    expect(receiver.events).toHaveLength(1);
    // The receiver deploys the new secret; the retry verifies.
    receiver.trust(newSecret);
    h.clock.advanceMinutes(1);
    await h.router.tick();
    expect(receiver.events).toHaveLength(2);
    expect(receiver.events[1]!.type).toBe("refund.completed");

    const detail = await page(`/m/${h.merchant.id}/webhooks/deliveries/${delivery}`);
    expect(detail.status).toBe(200);
    expect(detail.text).toContain("<code>refund.completed</code>");
    expect(detail.text).toContain(`href="/admin${base}">${receiver.url}</a>`);
    expect(detail.text).toContain("<dd data-delivery-status>succeeded</dd>");
    const attempts = [...detail.text.matchAll(/<tr data-attempt>[\s\S]*?<\/tr>/g)].map((match) => match[0]);
    expect(attempts).toHaveLength(2);
    expect(attempts.map((row) => /data-attempt-status>([^<]+)</.exec(row)![1])).toEqual(["401", "200"]);
    for (const row of attempts) {
      expect(row).toMatch(/data-attempt-duration>\d+(\.\d)? m?s</);
      expect(row).toMatch(/<time datetime="2026-03-0\dT[\d:.]+Z">/);
    }
  });

  it("disables and enables an endpoint from its page: disabled, it fails what was queued and gets no test event", async () => {
    h = await dashboardHost();
    const added = await addEndpoint("https://hooks.shop.example/pay");
    const base = `/m/${h.merchant.id}/webhooks/endpoints/${added.id}`;
    const disabled = await form(`${base}/disable`, { _csrf: added.token, mode: "test" });
    expect(disabled.status).toBe(200);
    expect(disabled.text).toContain("Endpoint disabled");
    expect(disabled.text).toContain('<dd data-endpoint-status>disabled <span class="muted">(disabled by dashboard:ada@shop.example)</span></dd>');
    expect(disabled.text).toContain(">Enable endpoint</button>");
    expect(disabled.text).not.toContain(">Send a test event</button>");
    expect((await get(h, `/v1/webhook-endpoints/${added.id}`)).body).toMatchObject({
      status: "disabled",
      disabledReason: "disabled by dashboard:ada@shop.example",
    });
    // The overview names it, with why, and links its page.
    const overview = await page(`/m/${h.merchant.id}`);
    expect(overview.text).toContain(`href="/admin${base}">https://hooks.shop.example/pay</a> is disabled (disabled by dashboard:ada@shop.example).`);
    // A test event to a disabled endpoint: the API's refusal, on the page.
    const refused = await form(`${base}/test`, { _csrf: added.token, mode: "test" });
    expect(refused.status).toBe(409);
    expect(refused.text).toContain("is disabled");
    expect(await h.router.storage.listWebhookDeliveries({ merchantId: h.merchant.id, mode: "test" }, {}, { limit: 10 })).toEqual([]);

    const enabled = await form(`${base}/enable`, { _csrf: added.token, mode: "test" });
    expect(enabled.status).toBe(200);
    expect(enabled.text).toContain("Endpoint enabled");
    expect((await get(h, `/v1/webhook-endpoints/${added.id}`)).body).toMatchObject({ status: "enabled", disabledReason: null });
    expect(enabled.text).toContain(">Disable endpoint</button>");
  });

  it("deletes an endpoint after a confirmation step", async () => {
    h = await dashboardHost();
    const added = await addEndpoint("https://hooks.shop.example/pay");
    const base = `/m/${h.merchant.id}/webhooks/endpoints/${added.id}`;
    expect((await page(base)).text).toContain(`href="/admin${base}/delete">Delete endpoint…</a>`);
    const confirm = await page(`${base}/delete`);
    expect(confirm.status).toBe(200);
    expect(confirm.text).toContain("cannot be undone");
    expect(confirm.text).toContain(`action="/admin${base}/delete"`);
    expect((await get(h, `/v1/webhook-endpoints/${added.id}`)).status).toBe(200);
    const deleted = await form(`${base}/delete`, { _csrf: tokenOf(confirm.text), mode: "test" });
    expect(deleted.status).toBe(200);
    expect(deleted.text).toContain("Endpoint https://hooks.shop.example/pay deleted.");
    expect(deleted.text).toContain("No webhook endpoints.");
    expect((await get(h, `/v1/webhook-endpoints/${added.id}`)).status).toBe(404);
    expect((await page(base)).status).toBe(404);
    expect((await form(`${base}/delete`, { _csrf: added.token, mode: "test" })).status).toBe(404);
  });

  it("names the endpoint of a delivery whose endpoint was deleted by id, and the host's own handlers for in-process deliveries", async () => {
    h = await dashboardHost({ on: { "payment.created": () => undefined } });
    const added = await addEndpoint("http://127.0.0.1:9/hook"); // nothing listens: it waits for a retry
    const sent = await form(`/m/${h.merchant.id}/webhooks/endpoints/${added.id}/test`, { _csrf: added.token, mode: "test" });
    const delivery = /Test event queued as delivery (msg_[A-Za-z0-9]+)/.exec(sent.text)![1]!;
    expect((await h.post("/v1/payments", { amount: "5", currency: "USDT", chain: "TRX" })).status).toBe(200);
    await h.router.tick();
    expect((await form(`/m/${h.merchant.id}/webhooks/endpoints/${added.id}/delete`, { _csrf: added.token, mode: "test" })).status).toBe(200);
    const orphan = await page(`/m/${h.merchant.id}/webhooks/deliveries/${delivery}`);
    expect(orphan.status).toBe(200);
    expect(orphan.text).toContain(`<span class="mono">${added.id}</span> <span class="muted">(deleted)</span>`);
    expect(orphan.text).toContain("<dd data-delivery-status>failed</dd>\n<dt>Last answer</dt><dd>the endpoint was deleted</dd>");
    const inProcess = ((await get(h, "/v1/webhook-deliveries?endpointId=we_in_process")).body.data as Array<{ id: string }>)[0]!.id;
    const own = await page(`/m/${h.merchant.id}/webhooks/deliveries/${inProcess}`);
    expect(own.status).toBe(200);
    expect(own.text).toContain("<dt>Endpoint</dt><dd>The host's own handlers</dd>");
    expect(own.text).toContain("<dd data-delivery-status>succeeded</dd>");
  });

  it("redelivers from a delivery's page and answers with that page", async () => {
    h = await dashboardHost();
    receiver = await startVerifyingReceiver(h);
    const added = await addEndpoint(receiver.url);
    receiver.trust(added.secret);
    const sent = await form(`/m/${h.merchant.id}/webhooks/endpoints/${added.id}/test`, { _csrf: added.token, mode: "test" });
    const delivery = /Test event queued as delivery (msg_[A-Za-z0-9]+)/.exec(sent.text)![1]!;
    await h.router.tick();
    const path = `/m/${h.merchant.id}/webhooks/deliveries/${delivery}`;
    const before = await page(path);
    expect(before.text).toContain("<dd data-delivery-status>succeeded</dd>");
    expect(before.text).toContain('name="back" value="delivery"');
    const done = await form(`${path}/redeliver`, { _csrf: added.token, mode: "test", back: "delivery" });
    expect(done.status).toBe(200);
    expect(done.text).toContain("The delivery was queued again.");
    expect(done.text).toContain("<dd data-delivery-status>pending</dd>");
    expect(done.text).toContain("<h1>Delivery of payment.created</h1>");
    await h.router.tick();
    // Sent again with the same webhook-id: verified, and skipped by the receiver that handled it already.
    expect(receiver.events).toHaveLength(1);
    const after = (await page(path)).text;
    expect(after).toContain("<dd data-delivery-status>succeeded</dd>");
    expect([...after.matchAll(/data-attempt-status>([^<]+)</g)].map((match) => match[1])).toEqual(["200", "200"]);
  });
});

describe("who may manage webhook endpoints", () => {
  it("refuses a viewer's every action with 403 and changes nothing; a viewer's pages carry no forms", async () => {
    h = await dashboardHost();
    const added = await addEndpoint("https://hooks.shop.example/pay");
    const base = `/m/${h.merchant.id}/webhooks/endpoints/${added.id}`;
    for (const path of [base, `/m/${h.merchant.id}/webhooks`]) {
      const res = await page(path, "viewer");
      expect(res.status).toBe(200);
      expect(res.text).not.toContain("_csrf");
      expect(res.text).toContain("Viewers cannot");
    }
    expect((await page(`${base}/delete`, "viewer")).status).toBe(403);
    const before = await endpointsOf();
    for (const [path, fields] of [
      [`/m/${h.merchant.id}/webhooks/endpoints`, { url: "https://hooks.shop.example/new", mode: "test" }],
      [`${base}/rotate`, { mode: "test" }],
      [`${base}/disable`, { mode: "test" }],
      [`${base}/test`, { mode: "test" }],
      [`${base}/delete`, { mode: "test" }],
    ] as const) {
      const res = await form(path, { ...fields, _csrf: added.token }, "viewer");
      expect(res.status, path).toBe(403);
      expect(res.text).not.toContain("whsec_");
    }
    expect(await endpointsOf()).toEqual(before);
    expect(await storedSecrets(added.id)).toEqual([added.secret]);
    expect(await h.router.storage.listWebhookDeliveries({ merchantId: h.merchant.id, mode: "test" }, {}, { limit: 10 })).toEqual([]);
  });

  it("refuses a form without its CSRF token, or with another user's, and changes nothing", async () => {
    h = await dashboardHost();
    const added = await addEndpoint("https://hooks.shop.example/pay");
    const base = `/m/${h.merchant.id}/webhooks/endpoints/${added.id}`;
    const limitedToken = tokenOf((await page(base, "limited")).text);
    for (const token of [undefined, "", "1.AAAA", limitedToken]) {
      const csrf: Record<string, string> = token === undefined ? {} : { _csrf: token };
      for (const [path, fields] of [
        [`/m/${h.merchant.id}/webhooks/endpoints`, { url: "https://hooks.shop.example/new", mode: "test" }],
        [`${base}/rotate`, { mode: "test" }],
        [`${base}/disable`, { mode: "test" }],
        [`${base}/delete`, { mode: "test" }],
      ] as const) {
        const res = await form(path, { ...fields, ...csrf });
        expect(res.status, `${path} ${token}`).toBe(403);
        expect(res.text).toContain("This form expired or did not come from this dashboard");
      }
    }
    expect((await endpointsOf()).map((endpoint) => [endpoint.id, endpoint.status])).toEqual([[added.id, "enabled"]]);
    expect(await storedSecrets(added.id)).toEqual([added.secret]);
  });

  it("answers 404 to another merchant's endpoint and delivery ids, by URL and in forms, and to the other mode's in a form", async () => {
    h = await dashboardHost();
    const theirs = await h.post("/v1/webhook-endpoints", { url: "https://hooks.other.example/pay" }, h.otherTestKey);
    expect(theirs.status).toBe(200);
    const theirDelivery = (await h.post(`/v1/webhook-endpoints/${theirs.body.id}/test`, {}, h.otherTestKey)).body.id as string;
    const mine = await addEndpoint("https://hooks.shop.example/pay");
    const myDelivery = /Test event queued as delivery (msg_[A-Za-z0-9]+)/.exec(
      (await form(`/m/${h.merchant.id}/webhooks/endpoints/${mine.id}/test`, { _csrf: mine.token, mode: "test" })).text,
    )![1]!;
    const token = tokenOf((await page(`/m/${h.merchant.id}/webhooks`, "limited")).text);
    const theirBase = (merchantId: string) => `/m/${merchantId}/webhooks/endpoints/${theirs.body.id}`;

    for (const path of [
      theirBase(h.merchant.id),
      `${theirBase(h.merchant.id)}/delete`,
      `/m/${h.merchant.id}/webhooks/deliveries/${theirDelivery}`,
      theirBase(h.other.id),
      `/m/${h.other.id}/webhooks/deliveries/${theirDelivery}`,
      `/m/${h.other.id}/webhooks`,
    ]) {
      const res = await page(path, "limited");
      expect(res.status, path).toBe(404);
      expect(res.text).not.toContain("hooks.other.example");
      expect(res.text).not.toContain("Other shop");
    }
    for (const merchantId of [h.merchant.id, h.other.id]) {
      for (const action of ["rotate", "disable", "test", "delete"]) {
        expect((await form(`${theirBase(merchantId)}/${action}`, { _csrf: token, mode: "test" }, "limited")).status, `${merchantId} ${action}`).toBe(404);
        expect((await form(`${theirBase(merchantId)}/${action}`, { _csrf: token }, "limited")).status).toBe(404);
      }
      expect((await form(`/m/${merchantId}/webhooks/deliveries/${theirDelivery}/redeliver`, { _csrf: token, mode: "test" }, "limited")).status).toBe(404);
    }
    // The other merchant's endpoint: as it was, and still one test delivery.
    const after = await get(h, `/v1/webhook-endpoints/${theirs.body.id}`, h.otherTestKey);
    expect(after.body).toMatchObject({ status: "enabled" });
    expect((await h.router.storage.getWebhookEndpoint({ merchantId: h.other.id, mode: "test" }, theirs.body.id))?.secrets).toHaveLength(1);
    expect(await h.router.storage.listWebhookDeliveries({ merchantId: h.other.id, mode: "test" }, {}, { limit: 10 })).toHaveLength(1);

    // My own test endpoint, with a form naming the live mode (or none that exists): 404, unchanged.
    for (const mode of ["live", "gold", ""]) {
      for (const action of ["rotate", "disable", "test", "delete"]) {
        const res = await form(`/m/${h.merchant.id}/webhooks/endpoints/${mine.id}/${action}`, { _csrf: mine.token, mode });
        expect(res.status, `${action} ${mode}`).toBe(404);
      }
      expect((await form(`/m/${h.merchant.id}/webhooks/deliveries/${myDelivery}/redeliver`, { _csrf: mine.token, mode })).status).toBe(404);
    }
    expect(await storedSecrets(mine.id)).toEqual([mine.secret]);
    expect((await get(h, `/v1/webhook-endpoints/${mine.id}`)).body.status).toBe("enabled");
    expect(await h.router.storage.listWebhookDeliveries({ merchantId: h.merchant.id, mode: "test" }, {}, { limit: 10 })).toHaveLength(1);
    // The right mode works.
    expect((await form(`/m/${h.merchant.id}/webhooks/endpoints/${mine.id}/disable`, { _csrf: mine.token, mode: "test" })).status).toBe(200);
  });
});
