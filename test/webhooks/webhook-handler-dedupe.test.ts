import { afterEach, describe, expect, it } from "vitest";
import { memoryDedupeStore, type WebhookDedupeStore } from "../../src/webhooks/dedupe-store";
import { deferred, eventBody, NOW_S, remoteLike, signedHeaders } from "./fixtures";
import { deliver, listening, receiver } from "./handler-harness";

const body = eventBody("payment.completed");
const servers: Array<{ close: () => Promise<void> }> = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

/**
 * A receiver whose payment.completed handler counts its runs and, when `gated`, waits at a gate
 * that open() lifts for the runs waiting at it.
 */
function gatedReceiver(options: { dedupe?: WebhookDedupeStore | false; fail?: () => boolean; gated?: boolean } = {}) {
  let gate = deferred();
  let entered = deferred();
  const runs: string[] = [];
  const { app, logger } = receiver({
    ...(options.dedupe === undefined ? {} : { dedupe: options.dedupe }),
    on: {
      "payment.completed": async (_event, context) => {
        runs.push(context.id);
        entered.resolve();
        if (options.gated !== false) await gate.promise;
        if (options.fail?.()) throw new Error("handler failed");
      },
    },
  });
  return {
    app,
    logger,
    runs,
    entered: () => entered.promise,
    open: () => {
      gate.resolve();
      gate = deferred();
      entered = deferred();
    },
  };
}

describe("webhookHandler: exactly-once by webhook-id", () => {
  it("answers a repeated delivery 200 without running the handler again", async () => {
    const { app, runs } = gatedReceiver({ gated: false });
    const headers = signedHeaders(body, { id: "msg_once" });
    expect((await deliver(app, body, headers)).body).toEqual({ received: true });
    // A genuine retry is re-signed with a fresh timestamp and the same id.
    const retry = await deliver(app, body, signedHeaders(body, { id: "msg_once", timestamp: NOW_S + 60 }));
    expect(retry.status).toBe(200);
    expect(retry.body).toEqual({ received: true, duplicate: true });
    expect(runs).toEqual(["msg_once"]);
  });

  it("runs every delivery when dedupe is off", async () => {
    const { app, runs } = gatedReceiver({ dedupe: false, gated: false });
    const headers = signedHeaders(body, { id: "msg_twice" });
    await deliver(app, body, headers);
    expect((await deliver(app, body, headers)).body).toEqual({ received: true });
    expect(runs).toEqual(["msg_twice", "msg_twice"]);
  });

  it("does not mark a failed delivery done: the retry runs the handler again", async () => {
    let failing = true;
    const { app, runs } = gatedReceiver({ fail: () => failing, gated: false });
    const headers = signedHeaders(body, { id: "msg_retry" });
    expect((await deliver(app, body, headers)).status).toBe(500);
    failing = false;
    expect((await deliver(app, body, headers)).body).toEqual({ received: true });
    expect((await deliver(app, body, headers)).body).toEqual({ received: true, duplicate: true });
    expect(runs).toEqual(["msg_retry", "msg_retry"]);
  });

  for (const [name, makeStore] of [
    ["the memory store", () => memoryDedupeStore()],
    ["an async store with network-like delays", () => remoteLike(memoryDedupeStore())],
  ] as const) {
    it(`never runs the handler twice for concurrent deliveries of one id (${name})`, async () => {
      const { app, runs, entered, open } = gatedReceiver({ dedupe: makeStore() });
      const server = await listening(app);
      servers.push(server);
      const headers = signedHeaders(body, { id: "msg_race" });
      const first = server.post(body, headers);
      await entered();
      const duplicates = await Promise.all(Array.from({ length: 8 }, () => server.post(body, headers)));
      for (const duplicate of duplicates) {
        // Not 2xx: if the first attempt fails, the sender must still retry this delivery.
        expect(duplicate.status).toBe(409);
        expect(duplicate.body).toEqual({ error: 40911, message: expect.stringContaining("msg_race") });
        expect(duplicate.retryAfter).toBe("5");
      }
      open();
      expect((await first).status).toBe(200);
      expect((await server.post(body, headers)).body).toEqual({ received: true, duplicate: true });
      expect(runs).toEqual(["msg_race"]);
    });
  }

  it("never runs the handler twice when many deliveries of one id arrive at once", async () => {
    const { app, runs, open } = gatedReceiver({ dedupe: remoteLike(memoryDedupeStore(), 5) });
    const server = await listening(app);
    servers.push(server);
    const headers = signedHeaders(body, { id: "msg_burst" });
    const all = Array.from({ length: 12 }, () => server.post(body, headers));
    const opener = setInterval(open, 5);
    const statuses = (await Promise.all(all)).map((response) => response.status);
    clearInterval(opener);
    expect(runs).toEqual(["msg_burst"]);
    expect(statuses.filter((status) => status === 200).length).toBeGreaterThanOrEqual(1);
    expect(statuses.every((status) => status === 200 || status === 409)).toBe(true);
  });

  it("runs the handler once across app instances that share a store", async () => {
    const shared = memoryDedupeStore();
    const instances = [gatedReceiver({ dedupe: remoteLike(shared) }), gatedReceiver({ dedupe: remoteLike(shared) })];
    const servers_ = await Promise.all(instances.map((instance) => listening(instance.app)));
    servers.push(...servers_);
    const headers = signedHeaders(body, { id: "msg_two_instances" });
    const attempts = servers_.flatMap((server) => [server.post(body, headers), server.post(body, headers)]);
    await Promise.race(instances.map((instance) => instance.entered()));
    await new Promise((resolve) => setTimeout(resolve, 30));
    for (const instance of instances) instance.open();
    const answers = await Promise.all(attempts);
    // One attempt ran; the others were turned away while it ran, or (if slow to arrive) saw it done.
    expect(answers.filter((answer) => answer.status === 200 && answer.body.duplicate === undefined)).toHaveLength(1);
    expect(answers.every((answer) => answer.status === 409 || answer.status === 200)).toBe(true);
    expect(instances.flatMap((instance) => instance.runs)).toEqual(["msg_two_instances"]);
  });

  it("lets the retry of a concurrently failed delivery run", async () => {
    let failing = true;
    const { app, runs, entered, open } = gatedReceiver({ fail: () => failing });
    const server = await listening(app);
    servers.push(server);
    const headers = signedHeaders(body, { id: "msg_fail_race" });
    const first = server.post(body, headers);
    await entered();
    expect((await server.post(body, headers)).status).toBe(409);
    open();
    expect((await first).status).toBe(500);
    failing = false;
    const retry = server.post(body, headers);
    await entered();
    open();
    expect((await retry).body).toEqual({ received: true });
    expect(runs).toEqual(["msg_fail_race", "msg_fail_race"]);
  });

  it("processes different ids side by side", async () => {
    const { app, runs, entered, open } = gatedReceiver();
    const server = await listening(app);
    servers.push(server);
    const a = server.post(body, signedHeaders(body, { id: "msg_a" }));
    await entered();
    const b = server.post(body, signedHeaders(body, { id: "msg_b" }));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(runs.sort()).toEqual(["msg_a", "msg_b"]);
    open();
    expect((await a).status).toBe(200);
    expect((await b).status).toBe(200);
  });

  it("answers 500 when the store cannot claim, without running the handler", async () => {
    const broken: WebhookDedupeStore = {
      claim: () => Promise.reject(new Error("redis down")),
      complete: () => undefined,
      release: () => undefined,
    };
    const { app, runs, logger } = gatedReceiver({ dedupe: broken });
    const response = await deliver(app, body);
    expect(response.status).toBe(500);
    expect(response.body.error).toBe(50013);
    expect(runs).toEqual([]);
    expect(logger.details).toContainEqual(new Error("redis down"));
  });

  it("answers 200 when the handler succeeded but the store cannot record it, and logs that", async () => {
    const store = memoryDedupeStore();
    const { app, logger } = gatedReceiver({
      gated: false,
      dedupe: { claim: store.claim, release: store.release, complete: () => Promise.reject(new Error("redis down")) },
    });
    const response = await deliver(app, body);
    expect(response.status).toBe(200);
    expect(logger.lines.some((line) => line.includes("failed to mark webhook-id"))).toBe(true);
  });
});
