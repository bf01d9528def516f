import { PGlite } from "@electric-sql/pglite";
import { HDKey } from "@scure/bip32";
import request from "supertest";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { deriveAddress } from "../../../../src/adapters/chain/bitcoin/keys";
import { addressParams } from "../../../../src/adapters/chain/bitcoin/params";
import { postgresStorage } from "../../../../src/postgres";
import type { Harness } from "../../../helpers";
import { get } from "../../../http/v1/support";
import { liveHarness, settle } from "../evm/support";
import { startLitecoind, type Litecoind } from "./litecoind";
import { ltcChain, newAccount } from "./support";

/**
 * The gap limit on a real Litecoin Core node (regtest): a wallet restored from the account's
 * seed stops after `gapLimit` unused receive addresses in a row, so the adapter never leaves more
 * than that many handed out and unpaid. Past it, an unpaid address of a payment expired longer
 * than the late window ago is handed out again, or a new payment gets 503 (50301).
 */

let node: Litecoind;
const open: Harness[] = [];

beforeAll(async () => {
  node = await startLitecoind();
  await node.fund();
}, 120_000);
afterAll(async () => {
  await node?.stop();
});
afterEach(async () => {
  for (const h of open.splice(0)) await h.router.close();
});

async function harness(gapLimit?: number, options: Parameters<typeof liveHarness>[1] = {}) {
  const account = newAccount();
  const chain = ltcChain(node, account, gapLimit === undefined ? {} : { gapLimit });
  const h = await liveHarness([chain], options);
  open.push(h);
  // Receive address i of the account, as a wallet restoring the tpub derives it.
  const key = HDKey.fromExtendedKey(account.xpub, { private: 0x04358394, public: 0x043587cf });
  const receive = (index: number) => deriveAddress(key, 0, index, addressParams("litecoin", "regtest"));
  return { h, chain, receive };
}

/** POST /v1/payments for LTC with the live key; the whole answer. */
const create = (h: Harness, amount = "0.1", lifeTime = 10) => h.post("/v1/payments", { amount, currency: "LTC", lifeTime }, h.liveKey);

async function created(h: Harness, amount?: string): Promise<{ id: string; address: string; payAmount: string }> {
  const res = await create(h, amount);
  expect(res.status, res.text).toBe(200);
  return res.body;
}

describe("bitcoinChain gap limit (LTC regtest)", () => {
  it("issues at most gapLimit unused addresses, counts a paid one as used, then reuses unpaid expired ones past the late window, oldest first", async () => {
    const { h, receive } = await harness(3);
    const first = await Promise.all([0, 1, 2].map(() => created(h)));
    expect(first.map((payment) => payment.address).sort()).toEqual([receive(0), receive(1), receive(2)].sort());

    // Three unused: a fourth would be invisible to a wallet with a gap limit of 3.
    const refused = await create(h);
    expect(refused.status).toBe(503);
    expect(refused.body.error).toBe(50301);
    expect(refused.body.message).toMatch(/the 3 unused addresses the wallet's gap limit allows are all held by payments that may still be paid/);

    // One is paid (seen in the mempool is enough): it is used for good, and index 3 can go out.
    const paid = first[1]!;
    await node.pay(paid.address, paid.payAmount);
    await settle(h);
    expect((await get(h, `/v1/payments/${paid.id}`, h.liveKey)).body.status).toBe("CONFIRMING");
    const fourth = await created(h);
    expect(fourth.address).toBe(receive(3));
    expect((await create(h)).status).toBe(503);

    // Expired, but inside the late window (60 minutes): a late payer may still pay, so no reuse.
    h.clock.advanceMinutes(11);
    await settle(h);
    expect((await get(h, `/v1/payments/${first[0]!.id}`, h.liveKey)).body.status).toBe("EXPIRED");
    expect((await create(h)).status).toBe(503);

    // Past it: the unpaid addresses of the expired payments go out again, the oldest hand-out first.
    h.clock.advanceMinutes(60);
    const again = [await created(h, "0.2"), await created(h, "0.2"), await created(h, "0.2")];
    const unpaid = [first[0]!.address, first[2]!.address].sort();
    expect(
      again
        .slice(0, 2)
        .map((payment) => payment.address)
        .sort(),
    ).toEqual(unpaid);
    expect(again[2]!.address).toBe(receive(3));
    expect((await create(h)).status).toBe(503);
    // Never an index past what a wallet with this gap limit finds: 0..3, with 1 used.
    expect(new Set([...first, fourth, ...again].map((payment) => payment.address))).toEqual(new Set([0, 1, 2, 3].map(receive)));

    // The address now belongs to its new payment: paying it completes that one, and the old
    // (expired, never paid) payment stays as it was.
    const reused = again[0]!;
    const previous = [first[0]!, first[2]!].find((payment) => payment.address === reused.address)!;
    await node.pay(reused.address, reused.payAmount);
    await node.mine(6);
    await settle(h);
    expect((await get(h, `/v1/payments/${reused.id}`, h.liveKey)).body).toMatchObject({ status: "PAID", receivedAmount: reused.payAmount });
    expect((await get(h, `/v1/payments/${previous.id}`, h.liveKey)).body).toMatchObject({ status: "EXPIRED", receivedAmount: "0" });
    // That address is used now: with one unused slot free again, the next payment gets index 4.
    expect((await created(h)).address).toBe(receive(4));
  });

  it("gives simultaneous coin choices on one invoice one address, and hands out an address never recorded again after 10 minutes", async () => {
    const { h, chain, receive } = await harness(3);
    const hosted = await h.post("/api/v1/merchants/invoice/create", { amount: 40, lifeTime: 60 }, h.liveKey);
    expect(hosted.status, hosted.text).toBe(200);
    // A script posts the same choice five times at once: each is quoted before one is saved,
    // and each asks the adapter for an address for this invoice: it gets the same one.
    const choices = await Promise.all(
      Array.from({ length: 5 }, () =>
        request(h.app).post(`/pay/${hosted.body.id}/method`).set("Sec-Fetch-Site", "same-origin").type("form").send({ coin: "LTC", network: "LTC" }),
      ),
    );
    expect(choices.map((res) => res.status)).toEqual([303, 303, 303, 303, 303]);
    const addresses = [(await get(h, `/v1/payments/${hosted.body.id}`, h.liveKey)).body.address as string];
    expect(addresses).toEqual([receive(0)]);

    // An address handed to an invoice that was never saved (a crash between the two) is recorded
    // nowhere; it still counts against the gap, and goes out again once its 10 minutes have passed.
    const lost = await chain.createAddress({ coin: "LTC", network: "LTC", merchantId: h.merchant.id, invoiceId: "inv_neverSaved" });
    expect(lost).toBe(receive(1));
    addresses.push((await created(h)).address);
    expect(addresses[1]).toBe(receive(2));
    expect((await create(h)).status).toBe(503);
    h.clock.advanceMinutes(9);
    expect((await create(h)).status).toBe(503);
    h.clock.advanceMinutes(1);
    expect((await created(h)).address).toBe(lost);
    expect((await create(h)).status).toBe(503);
  });

  it("keeps the limit for addresses issued before the list of unused ones was kept: they are derived again and sorted out by the service's records", async () => {
    const pglite = await PGlite.create();
    try {
      const { h, receive } = await harness(3, { storage: postgresStorage({ pglite, schema: "gap_earlier" }) });
      const first = [await created(h), await created(h), await created(h)];
      // What an earlier version left behind: the receive counter at 3, and no list.
      const deleted = await pglite.query("DELETE FROM gap_earlier.cursors WHERE key LIKE 'chain:bitcoin:LTC:unused-receive:%'");
      expect(deleted.affectedRows).toBe(1);
      expect((await create(h)).status).toBe(503);
      await node.pay(first[0]!.address, first[0]!.payAmount);
      await settle(h);
      expect((await created(h)).address).toBe(receive(3));
      expect((await create(h)).status).toBe(503);
      await h.router.close();
      open.splice(open.indexOf(h), 1);
    } finally {
      for (const h of open.splice(0)) await h.router.close();
      await pglite.close();
    }
  });

  it("defaults to 20, and a flood through a payment link's page stays within it", async () => {
    const { h, receive } = await harness();
    h.app.set("trust proxy", "loopback");
    const link = await h.post("/v1/payment-links", { amount: "5", acceptedCoins: ["LTC"], lifeTime: 10 }, h.liveKey);
    expect(link.status, link.text).toBe(200);
    const path = new URL(link.body.url as string).pathname;
    const statuses: number[] = [];
    for (let client = 0; client < 25; client++) {
      // 25 payers (own addresses, each within its limit) open the link and choose LTC on the page.
      const opened = await request(h.app).post(path).set("X-Forwarded-For", `203.0.113.${client}`).type("form").send("");
      expect(opened.status).toBe(303);
      const page = new URL(opened.headers.location!).pathname;
      const chosen = await request(h.app).post(`${page}/method`).set("Sec-Fetch-Site", "same-origin").type("form").send({ coin: "LTC", network: "LTC" });
      statuses.push(chosen.status);
      if (chosen.status === 503) expect(chosen.text).toContain("cannot be taken right now");
    }
    expect(statuses.filter((status) => status === 303)).toHaveLength(20);
    expect(statuses.filter((status) => status === 503)).toHaveLength(5);
    const issued = (await get(h, "/v1/payments?limit=100", h.liveKey)).body.data.map((payment: { address: string | null }) => payment.address).filter(Boolean);
    expect(new Set(issued)).toEqual(new Set(Array.from({ length: 20 }, (_, index) => receive(index))));
  });
});
