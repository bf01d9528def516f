import express from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EVENT_TYPES } from "../../src/storage";
import { type EventType, type WebhookEvent, webhookHandler } from "../../src/index";
import { cli, json } from "./cli";
import { listen, type RunningService, startCli, startService } from "./service";

/**
 * The development commands end to end: the router on a real port, `trigger` driving its
 * sandbox for every event type, and `listen` forwarding what it records to a receiver app
 * (webhookHandler) on another port, which verifies each event with the secret listen printed.
 * One service for the file: each CLI run is a process of its own, slow enough already.
 */

let service: RunningService;
let env: Record<string, string>;

beforeAll(async () => {
  service = await startService();
  env = { EXPRESS_CRYPTO_PAY_URL: service.url, EXPRESS_CRYPTO_PAY_API_KEY: service.testKey };
  // The merchant's own webhook endpoint: what trigger produces is delivered there too.
  const res = await fetch(`${service.url}/v1/webhook-endpoints`, {
    method: "POST",
    headers: { Authorization: `Bearer ${service.testKey}`, "Content-Type": "application/json" },
    body: JSON.stringify({ url: "http://127.0.0.1:9/merchant-hooks" }),
  });
  expect(res.status).toBe(200);
});
afterAll(async () => {
  await service?.close();
});

/** GET under the mount point with the test key. */
async function api(path: string): Promise<any> {
  const res = await fetch(`${service.url}${path}`, { headers: { Authorization: `Bearer ${service.testKey}` } });
  expect(res.status, path).toBe(200);
  return res.json();
}

describe("listen", () => {
  it("forwards each new event, signed with the secret it printed, to a receiver that verifies it, one line per event; Ctrl-C stops it", async () => {
    // An event from before listen starts is not forwarded.
    await fetch(`${service.url}/v1/payments`, {
      method: "POST",
      headers: { Authorization: `Bearer ${service.testKey}`, "Content-Type": "application/json" },
      body: JSON.stringify({ amount: "1", currency: "USDT", chain: "TRX" }),
    });
    // With --json: a JSON line to start with, and the summary at the end.
    const listener = startCli(["listen", "--forward-to", "http://127.0.0.1:4000/placeholder", "--interval", "200", "--json"], env);
    const [ready] = await listener.line(/^\{"ready":true.*$/m);
    expect(JSON.parse(ready!)).toEqual({ ready: true, forwardTo: "http://127.0.0.1:4000/placeholder", secret: expect.stringMatching(/^whsec_/) });
    listener.child.kill("SIGINT");
    expect(await listener.exited).toBe(0);
    expect(JSON.parse(listener.stdout().slice(ready!.length))).toEqual({ stopped: true, forwarded: 0 });

    // The receiver is built from the secret a second run prints, as a developer would.
    const received: WebhookEvent[] = [];
    let handler: ReturnType<typeof webhookHandler> | undefined;
    const app = express();
    app.post("/webhooks", (req, res, next) => void handler!(req, res, next));
    const receiver = await listen(app);
    try {
      const running = startCli(["listen", "--forward-to", `${receiver.base}/webhooks`, "--interval", "200"], env);
      const [, secret] = await running.line(/signing secret is (whsec_\S+)/);
      handler = webhookHandler({ secret: secret!, on: { "*": (event) => void received.push(event) }, logger: { warn() {}, error() {} } });

      const triggered = await cli(["trigger", "payment.completed", "--json"], env);
      expect(triggered.code, triggered.stderr).toBe(0);
      const paymentId = json(triggered).records.payment as string;
      const line = await running.line(/payment\.completed\s+(evt_\S+)\s+-> (\d+)/);
      expect(line[2]).toBe("200");
      expect(received.map((event) => event.type)).toEqual(["payment.created", "payment.confirming", "payment.confirmed", "payment.completed"]);
      expect(received.at(-1)!.data).toMatchObject({ id: paymentId, status: "PAID" });
      expect(line[1]).toBe(json(triggered).events.at(-1).id);

      running.child.kill("SIGINT");
      expect(await running.exited).toBe(0);
      expect(running.stdout()).toContain("stopped: 4 event(s) forwarded");
      expect(running.stdout()).not.toMatch(/payment\.created.*\n.*payment\.created/);
    } finally {
      receiver.server.closeAllConnections();
      receiver.server.close();
    }
  });

  it("prints the local endpoint's refusal, or that it cannot be reached, and keeps going", async () => {
    const app = express();
    app.post("/webhooks", (_req, res) => void res.status(400).send("bad signature"));
    const receiver = await listen(app);
    const secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
    try {
      const running = startCli(["listen", "--forward-to", `${receiver.base}/webhooks`, "--secret", secret, "--interval", "200"], env);
      await running.line(new RegExp(`signing secret is ${secret}`));
      expect((await cli(["trigger", "payment.created"], env)).code).toBe(0);
      await running.line(/payment\.created\s+evt_\S+\s+-> 400/);
      receiver.server.closeAllConnections();
      await new Promise((resolve) => receiver.server.close(resolve));
      expect((await cli(["trigger", "payment.expired"], env)).code).toBe(0);
      await running.line(/payment\.expired\s+evt_\S+\s+-> not delivered: ECONNREFUSED/);
      running.child.kill("SIGTERM");
      expect(await running.exited).toBe(0);
    } finally {
      receiver.server.close();
    }
  });

  it("stops with exit 1 and says why when the service refuses the key", async () => {
    const run = await cli(["listen", "--forward-to", "http://127.0.0.1:4000/webhooks"], {
      ...env,
      EXPRESS_CRYPTO_PAY_API_KEY: "sk_test_000000000000000000000000",
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^error: GET \/v1\/events\?after=now answered 401 \(401\d\d\)/);
  });
});

describe("trigger", () => {
  const HELD: readonly EventType[] = ["payout.awaiting_approval", "payout.rejected", "refund.awaiting_approval", "refund.rejected"];

  it.each(EVENT_TYPES.filter((type) => !HELD.includes(type)))("%s: the service records it, and delivers it to the merchant's endpoint", async (type) => {
    const run = await cli(["trigger", type, "--json"], env);
    expect(run.code, run.stderr + run.stdout).toBe(0);
    const result = json(run);
    expect(result).toMatchObject({ type, produced: true });
    const produced = result.events.filter((event: { type: string }) => event.type === type);
    expect(produced.length).toBeGreaterThan(0);
    // The event is in the service's log, about one of the records trigger made; so is every event
    // it lists (the merchant's other activity meanwhile, earlier runs' payouts settling, is not).
    const records = Object.values(result.records as Record<string, string>);
    expect(records).toContain(produced[0].resource);
    for (const event of result.events) expect(records).toContain(event.resource);
    // And the service queued its webhook to the merchant's endpoint.
    const deliveries = await api(`/v1/webhook-deliveries?eventType=${type}&limit=100`);
    expect(deliveries.data.map((delivery: { eventId: string }) => delivery.eventId)).toContain(produced[0].id);
  });

  it("the text output tells each step and the records made", async () => {
    const run = await cli(["trigger", "refund.failed"], env);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^created payment \S+ \(100 USDT to \S+\)$/m);
    expect(run.stdout).toMatch(/^created refund \S+ of 5 USDT to \S+ \(PROCESSING\)$/m);
    expect(run.stdout).toMatch(/^made the sandbox fail \S+$/m);
    expect(run.stdout).toMatch(/^ {2}refund\.failed\s+evt_\S+/m);
    expect(run.stdout).toMatch(/^refund\.failed produced: evt_\S+$/m);
  });

  describe("held for approval", () => {
    let heldEnv: Record<string, string>;
    beforeAll(async () => {
      const merchant = await service.router.admin.createMerchant({ name: "Careful shop" });
      await service.router.admin.setPayoutApproval(merchant.id, { above: "20", currency: "USDT" });
      heldEnv = { ...env, EXPRESS_CRYPTO_PAY_API_KEY: (await service.router.admin.issueApiKey(merchant.id, { mode: "test" })).key };
    });

    it.each(["payout", "refund"])("%s: awaiting_approval above the threshold, rejected once a person rejects it", async (kind) => {
      const held = await cli(["trigger", `${kind}.awaiting_approval`, "--payout-amount", "30", "--json"], heldEnv);
      expect(held.code, held.stderr + held.stdout).toBe(0);
      expect(json(held)).toMatchObject({ produced: true });

      const waiting = startCli(["trigger", `${kind}.rejected`, "--payout-amount", "30", "--timeout", "30"], heldEnv);
      const [, id] = await waiting.line(/(po_\S+) awaits approval: reject it in the dashboard/);
      await service.router.admin.rejectPayout(id!, { by: "usr_reviewer", reason: "not today" });
      expect(await waiting.exited, waiting.stderr()).toBe(0);
      expect(waiting.stdout()).toMatch(new RegExp(`^${kind}\\.rejected produced: evt_`, "m"));
    });

    it("says what to change when the amount is below the threshold", async () => {
      const run = await cli(["trigger", "payout.awaiting_approval"], env);
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(/went straight to PROCESSING: the merchant has no payout approval threshold below 5 USDT/);
    });
  });
});
