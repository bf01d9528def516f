import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { memoryStorage } from "../../../src/adapters/storage/memory/index";
import type { Storage, StorageTransaction } from "../../../src/core/ports/storage/index";
import { storageBackends } from "../../adapters/storage/sql-fixtures";
import { setup, type Harness } from "../../helpers";
import { describeIf, NO_DATABASE_URL } from "../../support/skips";
import { balances, expectError, paidPayment } from "./support";

/**
 * Twenty "refund everything left" requests on one payment at once, half with an
 * Idempotency-Key each and half with none: every 200 is a refund that request created (stored,
 * its id distinct), and every other answer is a 409 naming why, on the embedded default (PGlite
 * on a data directory) and on a PostgreSQL server.
 */

const REFUND_TO = "TQjw9LfWkygUMPoV5tvokXQX2YLdStctTe";
const REQUESTS = 20;

/** Each request's Idempotency-Key: every other one has its own, the rest none. */
const keyOf = (n: number): string | undefined => (n % 2 === 0 ? `refund-race-${n}` : undefined);

/** POST /v1/refunds with `body`, with request `n`'s key (if any). */
function refund(h: Harness, body: Record<string, unknown>, n: number) {
  const call = h.post("/v1/refunds", body);
  const key = keyOf(n);
  return key === undefined ? call : call.set("Idempotency-Key", key);
}

/** Sends the race for `body` and checks the answers against what storage holds. */
async function raceAndCount(h: Harness, body: (paymentId: string) => Record<string, unknown>): Promise<void> {
  await paidPayment(h, "400");
  const payment = await paidPayment(h, "100");
  const answers = await Promise.all(Array.from({ length: REQUESTS }, (_, n) => refund(h, body(payment.id), n)));
  const created = answers.filter((answer) => answer.status === 200);
  const stored = await h.router.storage.listRefunds(payment.id);
  // The whole 100 USDT went to exactly one refund, and that one request was answered 200 with it.
  expect(stored.map((row) => row.amount)).toEqual([100_000_000n]);
  expect(created.map((answer) => answer.body.id)).toEqual(stored.map((row) => row.id));
  expect(created[0]!.body).toMatchObject({ amount: "100", paymentId: payment.id });
  for (const answer of answers.filter((each) => each.status !== 200)) {
    expectError(answer, 409, 40902, new RegExp(`Payment ${payment.id} has nothing left to refund`));
  }
  // Debited once: 398 + 99.5 - (100 + 2 fee).
  expect((await balances(h)).USDT!.available).toBe("395.5");
  // A key sent again answers what it answered the first time, and creates nothing.
  for (let n = 0; n < REQUESTS; n += 2) {
    const again = await refund(h, body(payment.id), n);
    expect(again.status).toBe(answers[n]!.status);
    // A claim link's secret URL is shown once, never stored: the replay answers the rest.
    const { claimUrl: _shownOnce, ...first } = answers[n]!.body;
    expect(again.body).toEqual(first);
  }
  expect(await h.router.storage.listRefunds(payment.id)).toHaveLength(1);
}

/** A refund to an address, and a claim link (no address): both create one refund of everything left. */
const shapes: [string, (paymentId: string) => Record<string, unknown>][] = [
  ["to an address", (paymentId) => ({ paymentId, address: REFUND_TO })],
  ["as a claim link", (paymentId) => ({ paymentId })],
];

describe("concurrent refunds of everything left on the embedded default storage", () => {
  let dataDir: string | undefined;
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.router.close();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  for (const [name, body] of shapes) {
    it(`answers 200 only to the request whose refund was stored, 409 to the others (${name})`, async () => {
      dataDir = await mkdtemp(join(tmpdir(), "ecp-refund-race-"));
      h = await setup({ dataDir });
      await raceAndCount(h, body);
    }, 60_000);
  }
});

const server = storageBackends("refund_race").find((backend) => backend.name === "PostgreSQL server")!;

describeIf(server.enabled, NO_DATABASE_URL)("concurrent refunds of everything left on a PostgreSQL server", () => {
  let dispose: (() => Promise<void>) | undefined;
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.router.close();
    await dispose?.();
  });

  for (const [name, body] of shapes) {
    it(`answers 200 only to the request whose refund was stored, 409 to the others (${name})`, async () => {
      const opened = await server.open();
      dispose = opened.dispose;
      h = await setup({ storage: opened.storage });
      await raceAndCount(h, body);
    }, 60_000);
  }
});

/**
 * A memory storage whose next transaction that stores a payout fails at its end, after every
 * write of it was made (as a COMMIT, or a write the database checks only then, may fail): the
 * transaction rolls back whole.
 */
function storageFailingOnePayoutCommit(): Storage {
  const inner = memoryStorage();
  let armed = true;
  const watch = (tx: StorageTransaction, seen: { payout: boolean }) =>
    new Proxy(tx, {
      get(target, name, receiver) {
        const value = Reflect.get(target, name, receiver);
        if (typeof value !== "function") return value;
        if (name === "insertPayout") seen.payout = true;
        return value.bind(target);
      },
    });
  return new Proxy(inner, {
    get(target, name, receiver) {
      if (name !== "transaction") {
        const value = Reflect.get(target, name, receiver);
        return typeof value === "function" ? value.bind(target) : value;
      }
      return <T>(work: (tx: StorageTransaction) => Promise<T>) =>
        target.transaction(async (tx) => {
          const seen = { payout: false };
          const result = await work(watch(tx, seen));
          if (seen.payout && armed) {
            armed = false;
            throw new Error("the connection was lost while committing");
          }
          return result;
        });
    },
  });
}

describe("a refund whose transaction fails as it commits", () => {
  it("answers 500, not the 200 it had stored with the key, and the same key then creates the refund once", async () => {
    const h = await setup({ storage: storageFailingOnePayoutCommit() });
    await paidPayment(h, "400");
    const payment = await paidPayment(h, "100");
    const body = { paymentId: payment.id, address: REFUND_TO };
    const failed = await h.post("/v1/refunds", body).set("Idempotency-Key", "commit-fails");
    expectError(failed, 500, 50001);
    expect(await h.router.storage.listRefunds(payment.id)).toEqual([]);
    expect((await balances(h)).USDT!.available).toBe("497.5");
    // The key was forgotten with the work: the client's retry runs the refund, once.
    const retried = await h.post("/v1/refunds", body).set("Idempotency-Key", "commit-fails");
    expect(retried.status, retried.text).toBe(200);
    expect((await h.router.storage.listRefunds(payment.id)).map((row) => row.id)).toEqual([retried.body.id]);
    expect((await h.post("/v1/refunds", body).set("Idempotency-Key", "commit-fails")).body).toEqual(retried.body);
  });
});
