import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Harness } from "../../helpers";
import { balances, get } from "../../http/v1/support";
import { startAnvil, type Anvil } from "../../adapters/chain/evm/anvil";
import { ltcChain, ltcPayment, newAccount, payment as ltcInvoice } from "../../adapters/chain/bitcoin/support";
import { ethChain, liveHarness, livePayment, payNative, settle } from "../../adapters/chain/evm/support";
import { startLitecoind, type Litecoind } from "../../adapters/chain/bitcoin/litecoind";

/**
 * A node that hangs (its process stopped with SIGSTOP: its port stays open and every request
 * waits unanswered) holds neither `tick()`, nor `close()`, nor an HTTP payout for its adapter's
 * whole timeout: each settles within 10 s, checked by a race against a 10 s deadline, while the
 * other chain goes on. The adapters keep their default timeouts (10 s and 15 s a request).
 */

let anvil: Anvil;
let litecoind: Litecoind;
const open: Harness[] = [];

beforeAll(async () => {
  [anvil, litecoind] = await Promise.all([startAnvil(), startLitecoind()]);
  await litecoind.fund();
}, 120_000);
afterAll(async () => {
  anvil?.resume();
  litecoind?.resume();
  await Promise.all([anvil?.stop(), litecoind?.stop()]);
});
afterEach(async () => {
  anvil.resume();
  litecoind.resume();
  for (const h of open.splice(0)) await h.router.close();
});

async function harness(...args: Parameters<typeof liveHarness>): Promise<Harness> {
  const h = await liveHarness(...args);
  open.push(h);
  return h;
}

/** The bound every wait of these tests must keep. */
const BOUND_MS = 10_000;

/** How `work` settled, or "late" when it had not settled within BOUND_MS. */
async function withinBound<T>(work: Promise<T>): Promise<{ value: T } | { error: unknown } | "late"> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<"late">((resolve) => {
    timer = setTimeout(() => resolve("late"), BOUND_MS);
  });
  try {
    return await Promise.race([
      work.then(
        (value) => ({ value }),
        (error: unknown) => ({ error }),
      ),
      late,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** A live ETH balance of 0.995, from a real deposit of 1 ETH. */
async function fundEth(h: Harness): Promise<void> {
  const funding = await livePayment(h, { amount: "1", currency: "ETH", chain: "ETH" });
  await payNative(anvil, funding.address, "1");
  await anvil.mine(12);
  await settle(h);
  expect((await balances(h, h.liveKey)).ETH?.available).toBe("0.995");
}

describe("one hung node", () => {
  it("tick() rejects within 10 s naming the hung chain as still running, after the other chain's round credited its payment", async () => {
    const h = await harness([ethChain(anvil), ltcChain(litecoind, newAccount())]);
    await h.router.ready();
    const paid = await ltcPayment(h, "0.5");
    await litecoind.pay(paid.address, "0.5");
    await litecoind.mine(6);

    anvil.pause();
    const outcome = await withinBound(h.router.tick());
    expect(outcome).not.toBe("late");
    expect(outcome).toHaveProperty("error");
    const failure = (outcome as { error: AggregateError }).error;
    expect(failure).toBeInstanceOf(AggregateError);
    expect(failure.errors.map((error: Error) => error.message).join("\n")).toMatch(/^live chain evm:ETH: its round is still running after \d+ s/m);
    expect((await ltcInvoice(h, paid.id)).status).toBe("PAID");
    expect((await balances(h, h.liveKey)).LTC?.available).toBe("0.4975");

    // The next tick waits for the hung round again, within the bound, and still names it.
    const again = await withinBound(h.router.tick());
    expect(again).toHaveProperty("error");
  }, 60_000);

  it("close() resolves within 10 s while a round hangs on the node", async () => {
    const h = await liveHarness([ethChain(anvil), ltcChain(litecoind, newAccount())], { backgroundIntervalMs: 50 });
    await h.router.ready();
    anvil.pause();
    // A round of the ETH chain is under way and hangs on its node.
    const hung = h.router.tick().catch((error: unknown) => error);
    expect(await withinBound(h.router.close())).toEqual({ value: undefined });
    expect(await withinBound(hung)).not.toBe("late");
  }, 60_000);

  it("answers an HTTP payout within 10 s: stored, debited and PROCESSING, sent once the node answers; LTC payments go on meanwhile", async () => {
    const h = await harness([ethChain(anvil), ltcChain(litecoind, newAccount())]);
    await h.router.ready();
    await fundEth(h);
    const to = anvil.account(45).address;
    const before = await anvil.public.getBalance({ address: to });

    anvil.pause();
    const v1 = await withinBound(h.post("/v1/withdrawals", { currency: "ETH", chain: "ETH", amount: "0.1", address: to }, h.liveKey).then((res) => res));
    expect(v1).not.toBe("late");
    const withdrawal = (v1 as { value: { status: number; text: string; body: Record<string, unknown> } }).value;
    expect(withdrawal.status, withdrawal.text).toBe(200);
    expect(withdrawal.body).toMatchObject({ status: "PROCESSING", txHash: null });

    const merchantApi = await withinBound(
      h.post("/api/v1/merchants/payout/create", { currency: "ETH", network: "ETH", amount: 0.1, address: to }, h.liveKey).then((res) => res),
    );
    expect(merchantApi).not.toBe("late");
    const payout = (merchantApi as { value: { status: number; text: string; body: Record<string, unknown> } }).value;
    expect(payout.status, payout.text).toBe(200);
    expect(payout.body).toMatchObject({ status: "PROCESSING" });
    // Both stored and debited (amount + fees each), while the node still hangs.
    expect((await get(h, `/v1/withdrawals/${withdrawal.body.id}`, h.liveKey)).body).toMatchObject({ status: "PROCESSING" });
    const fetched = await h.post("/api/v1/merchants/payout/fetch", { payoutId: payout.body.id }, h.liveKey);
    expect(fetched.status, fetched.text).toBe(200);
    const left = (await balances(h, h.liveKey)).ETH?.available;
    expect(left).not.toBe("0.995");

    // The other chain takes and credits payments meanwhile.
    const ltc = await ltcPayment(h, "0.2");
    await litecoind.pay(ltc.address, "0.2");
    await litecoind.mine(6);
    await h.router.tick().catch(() => undefined); // ETH's round is still hung: a failure by design.
    expect((await ltcInvoice(h, ltc.id)).status).toBe("PAID");

    // Back: each payout is sent once (the request's late broadcast and the round's are one transaction).
    anvil.resume();
    await settle(h);
    await anvil.mine(12);
    await settle(h);
    expect((await get(h, `/v1/withdrawals/${withdrawal.body.id}`, h.liveKey)).body).toMatchObject({ status: "COMPLETED" });
    expect((await h.post("/api/v1/merchants/payout/fetch", { payoutId: payout.body.id }, h.liveKey)).body.status).toBe("COMPLETED");
    expect(await anvil.public.getBalance({ address: to })).toBe(before + 200_000_000_000_000_000n);
    expect((await balances(h, h.liveKey)).ETH?.available).toBe(left);
  }, 90_000);

  it("answers 503 within 10 s, nothing stored or debited, when the destination check needs a node that hangs", async () => {
    // A Bitcoin-family chain checks addresses against the node's network, known only once reached.
    const h = await harness([ltcChain(litecoind, newAccount())]);
    const posted = await h.router.storage.transaction((tx) =>
      tx.postLedgerEntries([
        {
          id: "led_test_ltc",
          merchantId: h.merchant.id,
          mode: "live",
          asset: "LTC",
          amount: 200_000_000n,
          kind: "deposit",
          causeKey: "test-credit:ltc",
          createdAt: h.clock.now(),
        },
      ]),
    );
    expect(posted.status).toBe("posted");
    const address = await litecoind.newAddress();

    litecoind.pause();
    for (const [path, body] of [
      ["/v1/withdrawals", { currency: "LTC", amount: "0.5", address }],
      ["/api/v1/merchants/payout/create", { currency: "LTC", network: "LTC", amount: 0.5, address }],
    ] as const) {
      const outcome = await withinBound(h.post(path, body, h.liveKey).then((res) => res));
      expect(outcome).not.toBe("late");
      const res = (outcome as { value: { status: number; text: string; body: Record<string, unknown> } }).value;
      expect(res.status, res.text).toBe(503);
      expect(res.body).toMatchObject({ error: 50301 });
      expect(res.text).not.toContain(litecoind.rpcPassword);
    }
    expect((await balances(h, h.liveKey)).LTC?.available).toBe("2");
    expect((await get(h, "/v1/withdrawals", h.liveKey)).body.data).toEqual([]);
  }, 60_000);
});
