import { setTimeout as sleep } from "node:timers/promises";
import express from "express";
import request from "supertest";
import { describe, expect, it } from "vitest";
import type { Storage } from "../../../src/core/ports/storage/index";
import { createPaymentRouter } from "../../../src/index";
import { storageBackends, type StorageBackend } from "../../adapters/storage/sql-fixtures";
import { setup, type Harness } from "../../helpers";
import { CREATING_ROUTES, funded, type CreatingRoute } from "./creating-routes";
import { expectError } from "./support";
import { describeIf, NO_DATABASE_URL } from "../../support/skips";

/**
 * Idempotency keys across a crash: a process that dies mid-request must leave its key neither
 * stuck (409 for a day) nor open to a second run. A started key is leased to its
 * request (here 300 ms); the operation and the key's answer commit in one transaction.
 *
 * A "crash" is a request held still at a chosen transaction, as if its process had died there,
 * while a second router on the same storage (another instance) takes the client's retries; the
 * held request may then wake up, as a process that was only paused (a long GC, a VM freeze)
 * would, and must change nothing.
 */
const LEASE_MS = 300;

// On the server, two instances with pools of their own: the lease is measured on the server's clock.
const BACKENDS = storageBackends("crash");

/** A held transaction: `reached` resolves when the request got there; `release` lets it go on. */
interface Hold {
  reached: Promise<void>;
  release: () => void;
}

/**
 * Storage whose next transactions can be held, before they start or after they commit, the way
 * a process that stops there would leave things. Every other call goes straight through.
 */
function holdable(storage: Storage) {
  let armed: { skip: number; when: "before" | "after"; reached: () => void; released: Promise<void> } | null = null;
  const waitIf = async (when: "before" | "after") => {
    if (armed?.when !== when) return;
    if (armed.skip-- > 0) return;
    const hold = armed;
    armed = null;
    hold.reached();
    await hold.released;
  };
  const held = new Proxy(storage, {
    get(target, property) {
      if (property === "transaction") {
        return async (work: Parameters<Storage["transaction"]>[0]) => {
          await waitIf("before");
          const result = await target.transaction(work);
          await waitIf("after");
          return result;
        };
      }
      const value = Reflect.get(target, property, target) as unknown;
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return {
    storage: held,
    /** Holds the transaction after the next `skip` ones, `before` it starts or `after` it committed. */
    hold(when: "before" | "after", skip: number): Hold {
      let reached!: () => void;
      let release!: () => void;
      const reachedPromise = new Promise<void>((resolve) => (reached = resolve));
      armed = { skip, when, reached, released: new Promise<void>((resolve) => (release = resolve)) };
      return { reached: reachedPromise, release };
    },
  };
}

/** A second instance of the service on the same storage, with its own app. */
function secondInstance(h: Harness, storage: Storage) {
  const router = createPaymentRouter({
    storage,
    backgroundIntervalMs: false,
    now: h.clock.now,
    logger: h.logger,
    idempotency: { leaseMs: LEASE_MS },
    webhooks: { intervalMs: false, allowPrivateUrls: true },
  });
  const app = express().use(router);
  return (path: string, body: unknown, key: string) =>
    request(app)
      .post(path)
      .set("Authorization", `Bearer ${h.testKey}`)
      .set("Idempotency-Key", key)
      .send(body as object);
}

/** The answer as a replay gives it: without what is shown once. */
function replayed(route: CreatingRoute, text: string): unknown {
  const body = JSON.parse(text) as Record<string, unknown>;
  for (const field of route.replayLeavesOut ?? []) delete body[field];
  return body;
}

async function harness(backend: StorageBackend) {
  const opened = await backend.open();
  const held = holdable(opened.storage);
  const context = await funded({ storage: held.storage, idempotency: { leaseMs: LEASE_MS } });
  const retry = secondInstance(context.h, opened.second());
  const first = (route: CreatingRoute, key: string) =>
    // Started now (supertest sends on then()), answered whenever the held request goes on.
    context.h
      .post(route.path, route.body(context))
      .set("Idempotency-Key", key)
      .then((res) => res);
  return { ...context, held, retry, first, dispose: opened.dispose };
}

for (const backend of BACKENDS) {
  // Every creating route on the memory adapter; on SQL, the ones that move money or create payments.
  const routes =
    backend.name === "memory storage"
      ? CREATING_ROUTES
      : CREATING_ROUTES.filter((route) => ["/v1/withdrawals", "/v1/payments", "/v1/refunds"].includes(route.path));

  describeIf(backend.enabled, NO_DATABASE_URL)(`Idempotency-Key across a crash, on ${backend.name}`, () => {
    describe.each(routes)("POST $path", (route) => {
      it("a request that died before committing leaves its key to a retry once the lease lapses, and never runs twice", async () => {
        const t = await harness(backend);
        try {
          const before = await route.count(t.h);
          // The key's claim commits; the request stops before its operation's transaction.
          const stopped = t.held.hold("before", 1);
          const first = t.first(route, "crash-1");
          await stopped.reached;

          // Within the lease the key is the first request's: the retry is told to come back.
          expectError(await t.retry(route.path, route.body(t), "crash-1"), 409, 40901, /still being processed/);
          await sleep(LEASE_MS + 100);
          const retried = await t.retry(route.path, route.body(t), "crash-1");
          expect(retried.status, retried.text).toBe(200);
          expect(retried.headers["idempotent-replayed"]).toBeUndefined();
          expect(await route.count(t.h)).toBe(before + 1);

          // The first request wakes up: its key is gone to the retry, so it commits nothing.
          stopped.release();
          expectError(await first, 409, 40901, /lease/);
          expect(await route.count(t.h)).toBe(before + 1);

          // Every later retry, on either instance, replays the run that counted.
          const replay = await t.retry(route.path, route.body(t), "crash-1");
          expect(replay.headers["idempotent-replayed"]).toBe("true");
          expect(JSON.parse(replay.text)).toEqual(replayed(route, retried.text));
          expect(await route.count(t.h)).toBe(before + 1);
        } finally {
          await t.dispose();
        }
      });

      it("a request that died after committing has its answer replayed at once, lease or not", async () => {
        const t = await harness(backend);
        try {
          const before = await route.count(t.h);
          // The claim and the operation's transaction commit; the request stops right after.
          const stopped = t.held.hold("after", 1);
          const first = t.first(route, "crash-2");
          await stopped.reached;

          const retried = await t.retry(route.path, route.body(t), "crash-2");
          expect(retried.status, retried.text).toBe(200);
          expect(retried.headers["idempotent-replayed"]).toBe("true");
          expect(await route.count(t.h)).toBe(before + 1);

          stopped.release();
          const answered = await first;
          expect(answered.status, answered.text).toBe(200);
          expect((answered.body as { id: string }).id).toBe((retried.body as { id: string }).id);
          expect(await route.count(t.h)).toBe(before + 1);
        } finally {
          await t.dispose();
        }
      });
    });
  });
}

describe("the idempotency lease option", () => {
  it("is checked at start-up", async () => {
    await expect(setup({ idempotency: { leaseMs: 0 } })).rejects.toThrow(/idempotency\.leaseMs/);
  });
});
