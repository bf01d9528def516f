import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ChainAdapter } from "../../src/core/ports/chain";
import type { Scope } from "../../src/core/ports/storage/index";
import { setup, type Harness, simulatedLiveChain } from "../helpers";

/**
 * Debits race each other: parallel payouts and exchanges against one balance must never
 * overdraw it, and every request that fits is served. USDT on TRX: a payout debits its amount
 * plus withdrawFee 1 plus staticFixedFee 1.
 */

const UNITS = 1_000_000n;
const ADDRESS = "TMeVrmAGY8XwbaKbHDn5aRom7rGyaf23WY";

let h: Harness;
let scope: Scope;

beforeEach(async () => {
  h = await setup();
  scope = { merchantId: h.merchant.id, mode: "test" };
});

afterEach(async () => {
  await h.router.close();
});

const balance = (asset = "USDT") => h.router.storage.getBalance(scope, asset);

/**
 * Funds the merchant with exactly 84 USDT through a paid invoice: 84.42211 USDT received, less
 * the 0.5% fee 0.42211055 rounded down to 0.42211.
 */
async function fund84(): Promise<void> {
  const invoice = await h.post("/api/v1/merchants/whitelabel/create", { amount: 84.42211, amountCurrency: "USDT", payCurrency: "USDT", network: "TRX" });
  expect(invoice.status, JSON.stringify(invoice.body)).toBe(200);
  const paid = await h.post("/api/v1/sandbox/deposit/create", { address: invoice.body.address, amount: 84.42211, confirmations: 19 });
  expect(paid.status).toBe(200);
  expect((await h.post("/api/v1/merchants/invoice/fetch", { invoiceId: invoice.body.id })).body.status).toBe("PAID");
  expect(await balance()).toBe(84n * UNITS);
}

/** Reads the balance over and over until `work` settles; returns every value seen. */
async function sampling<T>(work: Promise<T>): Promise<{ result: T; seen: bigint[] }> {
  const seen: bigint[] = [];
  let done = false;
  const sampler = (async () => {
    while (!done) {
      seen.push(await balance());
      await new Promise((resolve) => setImmediate(resolve));
    }
  })();
  try {
    return { result: await work, seen };
  } finally {
    done = true;
    await sampler;
  }
}

function payout(amount: number) {
  return h.post("/api/v1/merchants/payout/create", { currency: "USDT", network: "TRX", amount, address: ADDRESS });
}

function exchange(amount: number) {
  return h.post("/api/v1/merchants/exchange/create", { fromCurrency: "USDT", toCurrency: "TRX", amount });
}

describe("parallel payouts", () => {
  it("serves exactly as many as the balance covers and refuses the rest with 42201", async () => {
    await fund84();
    // 7 x (10 + 1 + 1) = 84.
    const { result: responses, seen } = await sampling(Promise.all(Array.from({ length: 25 }, () => payout(10))));

    const served = responses.filter((res) => res.status === 200);
    const refused = responses.filter((res) => res.status !== 200);
    expect(served).toHaveLength(7);
    expect(refused).toHaveLength(18);
    for (const res of refused) {
      expect(res.status).toBe(422);
      expect(res.body).toEqual({ error: 42201, message: expect.any(String) });
    }
    for (const res of served) {
      expect(res.body).toMatchObject({ status: "PROCESSING", amount: 10, fee: 2, address: ADDRESS });
    }
    expect(new Set(served.map((res) => res.body.id)).size).toBe(7);

    expect(await balance()).toBe(0n);
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.every((value) => value >= 0n)).toBe(true);

    const debits = (await h.router.storage.listLedgerEntries(scope, "USDT")).filter((entry) => entry.kind === "payout");
    expect(debits).toHaveLength(7);
    expect(debits.every((entry) => entry.amount === -12n * UNITS)).toBe(true);
    expect(await h.router.storage.listPayoutsByStatus("test", "PROCESSING", 100)).toHaveLength(7);

    // Completing them on chain changes no balance.
    await h.router.tick();
    expect(await h.router.storage.listPayoutsByStatus("test", "COMPLETED", 100)).toHaveLength(7);
    expect(await balance()).toBe(0n);
  });

  it("leaves the remainder that no further payout covers", async () => {
    await fund84();
    // 6 x (11 + 2) = 78, leaving 6: less than one more payout's 13.
    const responses = await Promise.all(Array.from({ length: 20 }, () => payout(11)));
    expect(responses.filter((res) => res.status === 200)).toHaveLength(6);
    expect(responses.filter((res) => res.status === 422 && res.body.error === 42201)).toHaveLength(14);
    expect(await balance()).toBe(6n * UNITS);
  });

  it("refuses every payout when the balance is empty", async () => {
    const responses = await Promise.all(Array.from({ length: 10 }, () => payout(10)));
    expect(responses.every((res) => res.status === 422 && res.body.error === 42201)).toBe(true);
    expect(await balance()).toBe(0n);
    expect(await h.router.storage.listLedgerEntries(scope)).toEqual([]);
  });

  it("returns a failed payout's debit exactly once, however many times the failure is reported in parallel", async () => {
    await fund84();
    const created = await payout(10);
    expect(created.status).toBe(200);
    expect(await balance()).toBe(72n * UNITS);

    const responses = await Promise.all(Array.from({ length: 10 }, () => h.post("/api/v1/sandbox/payout/fail", { payoutId: created.body.id })));
    for (const res of responses) expect([200, 409]).toContain(res.status);
    expect(responses.some((res) => res.status === 200)).toBe(true);

    expect((await h.post("/api/v1/merchants/payout/fetch", { payoutId: created.body.id })).body.status).toBe("FAILED");
    await h.router.tick();
    expect(await balance()).toBe(84n * UNITS);
    const reversals = (await h.router.storage.listLedgerEntries(scope, "USDT")).filter((entry) => entry.kind === "payout_reversal");
    expect(reversals).toHaveLength(1);
    expect(reversals[0]!.amount).toBe(12n * UNITS);
  });

  it("settles a payout either way, but consistently, when failure reports race background rounds", async () => {
    await fund84();
    const created = await payout(10);
    const responses = await Promise.all([
      ...Array.from({ length: 6 }, () => h.post("/api/v1/sandbox/payout/fail", { payoutId: created.body.id })),
      ...Array.from({ length: 6 }, () => h.router.tick()),
    ]);
    for (const res of responses) {
      if ("status" in res) expect([200, 409]).toContain(res.status);
    }
    const status = (await h.post("/api/v1/merchants/payout/fetch", { payoutId: created.body.id })).body.status as string;
    expect(["COMPLETED", "FAILED"]).toContain(status);
    const reversals = (await h.router.storage.listLedgerEntries(scope, "USDT")).filter((entry) => entry.kind === "payout_reversal");
    expect(reversals).toHaveLength(status === "FAILED" ? 1 : 0);
    expect(await balance()).toBe(status === "FAILED" ? 84n * UNITS : 72n * UNITS);
  });
});

describe("parallel exchanges", () => {
  it("serves exactly as many as the balance covers, and credits each one's toAmount", async () => {
    await fund84();
    // 8 x 10 = 80 of 84 USDT.
    const { result: responses, seen } = await sampling(Promise.all(Array.from({ length: 20 }, () => exchange(10))));

    const served = responses.filter((res) => res.status === 200);
    expect(served).toHaveLength(8);
    for (const res of responses.filter((candidate) => candidate.status !== 200)) {
      expect(res.status).toBe(422);
      expect(res.body.error).toBe(42201);
    }
    // 10 USDT at 1 / 0.12 TRX each, rounded down to the unit.
    for (const res of served) expect(res.body).toMatchObject({ status: "SUCCESS", amount: 10, toAmount: 83.333333 });

    expect(await balance("USDT")).toBe(4n * UNITS);
    expect(await balance("TRX")).toBe(8n * 83_333_333n);
    expect(seen.every((value) => value >= 0n)).toBe(true);
    const entries = await h.router.storage.listLedgerEntries(scope);
    expect(entries.filter((entry) => entry.kind === "exchange_out")).toHaveLength(8);
    expect(entries.filter((entry) => entry.kind === "exchange_in")).toHaveLength(8);
  });

  it("shares one balance between parallel payouts and exchanges without overdrawing it", async () => {
    await fund84();
    const requests = Array.from({ length: 24 }, (_, i) => (i % 2 === 0 ? { kind: "payout", debit: 12n } : { kind: "exchange", debit: 10n }));
    const responses = await Promise.all(requests.map((request) => (request.kind === "payout" ? payout(10) : exchange(10))));

    let spent = 0n;
    const refusedDebits: bigint[] = [];
    responses.forEach((res, i) => {
      const debit = requests[i]!.debit * UNITS;
      if (res.status === 200) spent += debit;
      else {
        expect(res.status).toBe(422);
        expect(res.body.error).toBe(42201);
        refusedDebits.push(debit);
      }
    });
    const left = await balance("USDT");
    expect(left).toBe(84n * UNITS - spent);
    expect(left).toBeGreaterThanOrEqual(0n);
    // The balance only shrinks, so whatever was refused does not fit in what is left either.
    for (const debit of refusedDebits) expect(left < debit).toBe(true);
    expect(refusedDebits.length).toBeGreaterThan(0);
  });
});

describe("many payouts in flight", () => {
  it("still broadcasts a payout whose first send failed when 100 older payouts await confirmation", async () => {
    // A live chain that confirms nothing yet, and whose node is down for one send.
    const inner = simulatedLiveChain();
    let nodeDown = false;
    const chain: ChainAdapter = {
      ...inner,
      name: "slow-chain",
      async sendPayout(request) {
        if (nodeDown) {
          nodeDown = false;
          throw new Error("node unreachable");
        }
        return inner.sendPayout(request);
      },
      async getPayoutStatus() {
        return { status: "pending" };
      },
    };
    const live = await setup({ liveChain: chain });
    try {
      const liveScope: Scope = { merchantId: live.merchant.id, mode: "live" };
      const invoice = await live.post("/api/v1/merchants/whitelabel/create", { amount: 2000, payCurrency: "USDT", network: "TRX" }, live.liveKey);
      expect(invoice.status).toBe(200);
      inner.createDeposit({ coin: "USDT", network: "TRX", address: invoice.body.address, amount: 2000n * UNITS, confirmations: 19 });
      await live.router.tick();
      expect(await live.router.storage.getBalance(liveScope, "USDT")).toBe(1990n * UNITS);

      const send = () => live.post("/api/v1/merchants/payout/create", { currency: "USDT", network: "TRX", amount: 5, address: ADDRESS }, live.liveKey);
      for (let i = 0; i < 100; i++) expect((await send()).status).toBe(200);
      nodeDown = true;
      const stranded = await send();
      expect(stranded.status).toBe(200);
      expect(stranded.body.txHash).toBeNull();

      await live.router.tick();
      await live.router.tick();
      const after = await live.post("/api/v1/merchants/payout/fetch", { payoutId: stranded.body.id }, live.liveKey);
      expect(after.body.txHash).not.toBeNull();
      expect(inner.getPayout(stranded.body.id)).toBeDefined();
    } finally {
      await live.router.close();
    }
  });
});
