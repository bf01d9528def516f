import { randomBytes } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { PGlite } from "@electric-sql/pglite";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { postgresStorage } from "../../../../src/postgres";
import type { Storage } from "../../../../src/index";
import { parseMoneroAddress } from "../../../../src/adapters/chain/monero/address";
import { publicKeyOf } from "../../../../src/adapters/chain/monero/keys";
import type { Harness } from "../../../helpers";
import { closeReceivers, createEndpoint, startReceiver } from "../../../delivery/receiver";
import { balances, get } from "../../../http/v1/support";
import { liveHarness, restart, settle } from "../evm/support";
import { startRpcProxy } from "../rpc-proxy";
import { startMonerod, type Monerod } from "./monerod";
import { currencies, MIN_CONFIRM, withPrefix, xmrChain } from "./support";
import { payment } from "../bitcoin/support";

/**
 * moneroChain on a real monerod (regtest) and its wallet RPCs, through the public HTTP API with
 * a live key: deposits to subaddresses, their confirmations, a pool drop and a reorg, payouts
 * (and a crash between making one and relaying it), the checks of ready(), address rules, and
 * what errors show.
 */

// Mining is the slow part on this node (about 0.1 s a block, more with transactions): a test
// that mines its confirmations takes seconds.
vi.setConfig({ testTimeout: 60_000 });

let node: Monerod;
let pglite: PGlite;
let schemas = 0;
const open: Harness[] = [];

beforeAll(async () => {
  [node, pglite] = await Promise.all([startMonerod(), PGlite.create()]);
}, 300_000);
afterAll(async () => {
  await node?.stop();
  await pglite?.close();
});
afterEach(async () => {
  await closeReceivers();
  for (const h of open.splice(0)) await h.router.close();
});

/** A live service with XMR on the test node (the file's view-only wallet unless another is named). */
async function harness(options: Parameters<typeof xmrChain>[1] = {}, storage?: Storage): Promise<Harness> {
  const h = await liveHarness([xmrChain(node, { walletName: "service-view", ...options })], {
    currencies,
    storage: storage ?? postgresStorage({ pglite, schema: `xmr_${++schemas}` }),
  });
  open.push(h);
  return h;
}

/** Creates a live XMR payment of `amount` XMR; its address is a subaddress of the merchant's. */
async function xmrPayment(h: Harness, amount: string): Promise<{ id: string; address: string }> {
  const res = await h.post("/v1/payments", { amount, currency: "XMR" }, h.liveKey);
  expect(res.status, res.text).toBe(200);
  expect(parseMoneroAddress(res.body.address)).toMatchObject({ nettype: "mainnet", kind: "subaddress" });
  return { id: res.body.id, address: res.body.address };
}

/** XMR in piconero. */
const xmr = (text: string) => {
  const [whole, fraction = ""] = text.split(".");
  return BigInt(whole!) * 10n ** 12n + BigInt(fraction.padEnd(12, "0"));
};

async function withdrawal(h: Harness, id: string) {
  const res = await get(h, `/v1/withdrawals/${id}`, h.liveKey);
  expect(res.status, res.text).toBe(200);
  return res.body as { status: string; txHash: string | null; pendingReason: string | null };
}

/** A fresh key pair of another wallet: a private view key and the address of `prefix` it belongs to. */
function otherKeys(prefix: number): { address: string; viewKey: string } {
  const scalar = () => {
    const bytes = randomBytes(32);
    bytes[31]! &= 0x0f; // below the group order
    return bytes.toString("hex");
  };
  const viewKey = scalar();
  return { address: withPrefix({ spend: publicKeyOf(scalar()), view: publicKeyOf(viewKey) }, prefix), viewKey };
}

describe("deposits", () => {
  it("goes CONFIRMING on the pool transaction and PAID after the confirmations, with payment.completed delivered", async () => {
    const h = await harness();
    const receiver = await startReceiver();
    await createEndpoint(h, receiver.url, { key: h.liveKey });
    const created = await xmrPayment(h, "1.5");
    const txid = await node.pay(created.address, xmr("1.5"));
    await settle(h);
    expect((await payment(h, created.id)).status).toBe("CONFIRMING");
    await node.mine(MIN_CONFIRM - 1);
    await settle(h);
    expect((await payment(h, created.id)).status).toBe("CONFIRMING");
    await node.mine(1);
    await settle(h);
    const paid = await payment(h, created.id);
    expect(paid.status).toBe("PAID");
    expect((await balances(h, h.liveKey)).XMR?.available).toBe("1.4925"); // less the 0.5% fee
    const completed = receiver.events().filter((event) => event.type === "payment.completed");
    expect(completed).toHaveLength(1);
    expect(JSON.stringify(completed[0])).toContain(txid);
  });

  it("never credits a transfer the pool dropped before it was mined; the invoice waits again", async () => {
    const h = await harness();
    const created = await xmrPayment(h, "0.3");
    await node.pay(created.address, xmr("0.3"));
    await settle(h);
    expect((await payment(h, created.id)).status).toBe("CONFIRMING");
    await node.flushPool();
    expect(await node.pool()).toEqual([]);
    await node.mine(MIN_CONFIRM + 1);
    await settle(h);
    expect((await payment(h, created.id)).status).toBe("PENDING");
    expect((await balances(h, h.liveKey)).XMR?.available ?? "0").toBe("0");
  });

  it("sends an invoice back when a reorg takes its mined transfer off the chain before it was final", async () => {
    const h = await harness();
    const created = await xmrPayment(h, "0.4");
    const txid = await node.pay(created.address, xmr("0.4"));
    await node.mine(1);
    await settle(h);
    expect((await payment(h, created.id)).status).toBe("CONFIRMING");
    // The block leaves the chain: its transaction goes back to the pool, which is emptied, and a
    // longer chain without it is mined.
    await node.popBlocks(1);
    expect(await node.pool()).toContain(txid);
    await node.flushPool();
    await node.mine(MIN_CONFIRM + 1);
    await settle(h);
    expect((await payment(h, created.id)).status).toBe("PENDING");
    expect((await balances(h, h.liveKey)).XMR?.available ?? "0").toBe("0");
  });

  it("hands out subaddresses never issued before, after a restart on a view-only wallet that lost its latest ones", async () => {
    const storage = postgresStorage({ pglite, schema: `xmr_${++schemas}` });
    const first = await harness({ walletName: `lost-${Date.now()}` }, storage);
    const before = [await xmrPayment(first, "0.1"), await xmrPayment(first, "0.1")].map((created) => created.address);
    await first.router.close();
    open.splice(open.indexOf(first), 1);
    // Another wallet file for the same keys: it counts its subaddresses from 1 again.
    const second = await restart(
      first,
      [xmrChain(node, { walletName: `lost-again-${Date.now()}`, confirmations: MIN_CONFIRM })],
      postgresStorage({ pglite, schema: `xmr_${schemas}` }),
    );
    open.push(second);
    const after = (await xmrPayment(second, "0.1")).address;
    expect(before).not.toContain(after);
    expect(new Set(before).size).toBe(2);
  });
});

describe("ready()", () => {
  it("refuses a stagenet address on a regtest node, naming both networks", async () => {
    const stagenet = otherKeys(24);
    const h = await harness({ ...stagenet, walletName: "stagenet-view" });
    await expect(h.router.ready()).rejects.toThrow("XMR node is on regtest (mainnet addresses), but address is a stagenet address");
    const refused = await h.post("/v1/payments", { amount: "1", currency: "XMR" }, h.liveKey);
    expect(refused.status).toBe(503);
  });

  it("refuses a view key that is not the address's, without showing either key", async () => {
    const h = await harness({ viewKey: node.payerKeys.viewKey, walletName: "wrong-view-key" });
    const error = await h.router.ready().then(
      () => null,
      (reason: unknown) => reason as Error,
    );
    expect(error?.message).toMatch(/viewKey is not the private view key of the XMR address configured/);
    expect(error?.message).not.toContain(node.payerKeys.viewKey);
    expect(error?.message).not.toContain(node.merchant.viewKey);
  });

  it("refuses a wallet file of another address under the configured walletName", async () => {
    const name = `taken-${Date.now()}`;
    // The payer's keys make a view-only wallet under that name first.
    const first = await harness({ ...node.payerKeys, walletName: name, hot: false });
    await first.router.ready();
    const h = await harness({ walletName: name, hot: false });
    await expect(h.router.ready()).rejects.toThrow(`the wallet "${name}" in the wallet RPC is of another address than the one configured`);
  });
});

describe("addresses", () => {
  it("accepts standard, integrated and subaddresses of the node's network for a payout and refuses others with 400, as the wallet RPC judges them", async () => {
    const h = await harness();
    const chain = xmrChain(node, { hot: false });
    const integrated = (await node.payer<{ integrated_address: string }>("make_integrated_address", {})).integrated_address;
    const keys = parseMoneroAddress(node.payerKeys.address)!;
    const stagenet = withPrefix({ spend: keys.publicSpendKey, view: keys.publicViewKey }, 24);
    const cases: Array<[string, boolean]> = [
      [node.payerKeys.address, true],
      [integrated, true],
      [await node.destination(), true],
      [stagenet, false],
      [`${node.payerKeys.address.slice(0, 94)}${node.payerKeys.address.endsWith("1") ? "2" : "1"}`, false],
      ["not-an-address", false],
    ];
    for (const [address, valid] of cases) {
      expect(await chain.isValidAddress("XMR", "XMR", address), address).toBe(valid);
      const judged = await node.payer<{ valid: boolean; nettype: string }>("validate_address", { address, any_net_type: true });
      expect(judged.valid && judged.nettype === "mainnet", `the wallet RPC on ${address}`).toBe(valid);
      if (!valid) {
        const res = await h.post("/v1/withdrawals", { currency: "XMR", amount: "0.01", address }, h.liveKey);
        expect(res.status, address).toBe(400);
      }
    }
  });
});

describe("payouts", () => {
  /** Pays an invoice of `amount` XMR and confirms it: the merchant's balance. */
  async function fund(h: Harness, amount: string): Promise<void> {
    const created = await xmrPayment(h, amount);
    await node.pay(created.address, xmr(amount));
    await node.mine(MIN_CONFIRM);
    await settle(h);
    expect((await payment(h, created.id)).status).toBe("PAID");
  }

  it("sends a payout from the hot wallet: made, stored, relayed; COMPLETED after the confirmations, the destination paid exactly", async () => {
    const h = await harness();
    await fund(h, "2");
    const to = await node.destination();
    const res = await h.post("/v1/withdrawals", { currency: "XMR", amount: "0.75", address: to }, h.liveKey);
    expect(res.status, res.text).toBe(200);
    expect(res.body.txHash).toMatch(/^[0-9a-f]{64}$/);
    expect(await node.pool()).toContain(res.body.txHash);
    await settle(h);
    expect((await withdrawal(h, res.body.id)).status).toBe("PROCESSING");
    await node.mine(MIN_CONFIRM);
    await settle(h);
    expect(await withdrawal(h, res.body.id)).toMatchObject({ status: "COMPLETED", txHash: res.body.txHash });
    expect(await node.received(to)).toBe(xmr("0.75"));
  });

  it("does not pay twice when the process dies between making a payout and relaying it", async () => {
    const proxy = await startRpcProxy(`${node.hotWalletRpcUrl}/json_rpc`);
    const schema = `xmr_${++schemas}`;
    const viaProxy = { walletRpcUrl: proxy.url, walletName: node.hotWalletName, password: node.hotPassword };
    const first = await liveHarness([xmrChain(node, { walletName: "service-view", hotWallet: viaProxy })], {
      currencies,
      storage: postgresStorage({ pglite, schema }),
    });
    open.push(first);
    await fund(first, "1");
    const to = await node.destination();
    // The wallet RPC goes away exactly when the stored payout is relayed.
    proxy.refuse.add("relay_tx");
    const res = await first.post("/v1/withdrawals", { currency: "XMR", amount: "0.2", address: to }, first.liveKey);
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ status: "PROCESSING", txHash: null });
    expect(proxy.seen.get("transfer")).toBe(1);
    expect(proxy.seen.get("relay_tx")).toBeGreaterThan(0);
    expect(await node.pool()).toEqual([]);
    await first.router.close();
    open.splice(open.indexOf(first), 1);
    await proxy.close();

    // Restarted on the same database, straight to the wallet RPC: the stored transaction goes out, once.
    // (restart() runs on the default currency list: the adapter is told the test's confirmations.)
    const second = await restart(first, [xmrChain(node, { walletName: "service-view", confirmations: MIN_CONFIRM })], postgresStorage({ pglite, schema }));
    open.push(second);
    await settle(second);
    const waiting = await node.pool();
    expect(waiting).toHaveLength(1);
    await node.mine(MIN_CONFIRM);
    await settle(second);
    await settle(second);
    expect(await withdrawal(second, res.body.id)).toMatchObject({ status: "COMPLETED", txHash: waiting[0] });
    expect(await node.received(to)).toBe(xmr("0.2"));
  });

  it("shows why a payout waits while the hot wallet's coins are locked (as a freshly funded wallet's are), on its view and in health, and sends it once they unlock", async () => {
    const h = await harness();
    const created = await xmrPayment(h, "2");
    await node.pay(created.address, xmr("2"));
    await node.mine(MIN_CONFIRM);
    // The view-only wallet may take a round or two more to list the transfer on a loaded machine.
    await expect
      .poll(
        async () => {
          await settle(h);
          return (await payment(h, created.id)).status;
        },
        { timeout: 60_000, interval: 500 },
      )
      .toBe("PAID");
    // Held for approval while the hot wallet can fund it, so it is accepted.
    await h.router.admin.setPayoutApproval(h.merchant.id, { above: "0.1", currency: "XMR" });
    const to = await node.destination();
    const res = await h.post("/v1/withdrawals", { currency: "XMR", amount: "0.5", address: to }, h.liveKey);
    expect(res.status, res.text).toBe(200);
    expect(res.body.status).toBe("AWAITING_APPROVAL");
    // Every coin of the hot wallet moves to its own address: new outputs, locked for 10 blocks.
    await node.hot("sweep_all", { address: node.hotAddress, account_index: 0 });
    await node.mine(1);
    await node.hot("refresh");
    expect((await node.hot<{ unlocked_balance: string }>("get_balance", { account_index: 0 })).unlocked_balance).toBe("0");
    await h.router.admin.approvePayout(res.body.id, { by: "second-approver" });

    await h.router.tick().catch(() => undefined); // the round reports the payout it could not send
    const waiting = (await get(h, `/v1/withdrawals/${res.body.id}`, h.liveKey)).body;
    expect(waiting).toMatchObject({ status: "PROCESSING", txHash: null, pendingReason: expect.stringMatching(/^XMR hot wallet\b.*unlocked/) });
    expect(waiting.pendingReason).not.toContain(node.hotPassword);
    const health = await h.router.health();
    expect(health.chains[0]).toMatchObject({ payoutsNotSent: { count: 1, reasons: [waiting.pendingReason] } });
    expect(health.reasons).toContain(`chain ${health.chains[0]!.chain}: 1 payout(s) not sent yet (${waiting.pendingReason})`);

    await node.mine(10);
    await settle(h);
    const sent = await withdrawal(h, res.body.id);
    expect(sent).toMatchObject({ status: "PROCESSING", txHash: expect.stringMatching(/^[0-9a-f]{64}$/), pendingReason: null });
    await node.mine(MIN_CONFIRM);
    await settle(h);
    expect(await withdrawal(h, res.body.id)).toMatchObject({ status: "COMPLETED", pendingReason: null });
    expect(await node.received(to)).toBe(xmr("0.5"));
    expect((await h.router.health()).chains[0]).toMatchObject({ payoutsNotSent: { count: 0, reasons: [] } });
  });

  it("answers 503 that payouts need the hot wallet when none is configured, and debits nothing", async () => {
    const h = await harness({ hot: false });
    await fund(h, "0.5");
    const before = (await balances(h, h.liveKey)).XMR?.available;
    const res = await h.post("/v1/withdrawals", { currency: "XMR", amount: "0.1", address: await node.destination() }, h.liveKey);
    expect(res.status).toBe(503);
    expect(res.body.message).toMatch(/need the hot wallet/);
    expect((await balances(h, h.liveKey)).XMR?.available).toBe(before);
  });
});

describe("secrets", () => {
  it("shows no view key, password or URL in errors and logs, even when a wallet RPC repeats what it was sent", async () => {
    // A wallet RPC that answers every call with an error quoting the call, as some of its errors do.
    const echo = createServer((req, res) => {
      let body = "";
      req.on("data", (chunk) => (body += chunk));
      req.on("end", () => {
        const call = JSON.parse(body) as { id: unknown; method: string; params: unknown };
        res.setHeader("content-type", "application/json");
        res.end(JSON.stringify({ jsonrpc: "2.0", id: call.id, error: { code: -1, message: `refused ${call.method} ${JSON.stringify(call.params)}` } }));
      });
    });
    await new Promise<void>((resolve) => echo.listen(0, "127.0.0.1", resolve));
    // The adapter's fetch keeps its connections open: closing the server must not wait for them.
    const closeEcho = () => {
      echo.closeAllConnections();
      return new Promise((resolve) => echo.close(resolve));
    };
    const echoUrl = `http://127.0.0.1:${(echo.address() as AddressInfo).port}`;
    try {
      const password = "view-wallet-password";
      const chain = xmrChain(node, { walletRpcUrl: echoUrl, walletName: "echoed", walletPassword: password });
      const h = await liveHarness([chain], { currencies });
      open.push(h);
      // The adapter's own ready() (the router's waits for a chain that is only unreachable).
      const error = await chain.ready().then(
        () => null,
        (reason: unknown) => reason as Error,
      );
      expect(error?.message).toMatch(/refused (open_wallet|generate_from_keys)/);
      const created = await h.post("/v1/payments", { amount: "1", currency: "XMR" }, h.liveKey);
      expect(created.status).toBe(503);
      const shown = [error?.message ?? "", created.text, ...h.logger.lines].join("\n");
      expect(shown).toContain("[redacted]");
      for (const secret of [node.merchant.viewKey, password, echoUrl]) expect(shown).not.toContain(secret);

      // A hot wallet password refused by the wallet RPC is named as an option, never shown.
      const hot = await harness({ hotWallet: { walletRpcUrl: node.hotWalletRpcUrl, walletName: node.hotWalletName, password: "not-the-password" } });
      await fund(hot);
      const payout = await hot.post("/v1/withdrawals", { currency: "XMR", amount: "0.1", address: await node.destination() }, hot.liveKey);
      const said = [payout.text, ...hot.logger.lines].join("\n");
      expect(said).not.toContain("not-the-password");
    } finally {
      await closeEcho();
    }

    async function fund(h: Harness): Promise<void> {
      const created = await xmrPayment(h, "0.5");
      await node.pay(created.address, xmr("0.5"));
      await node.mine(MIN_CONFIRM);
      await settle(h);
    }
  }, 90_000);
});
