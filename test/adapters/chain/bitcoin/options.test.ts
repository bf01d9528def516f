import { HDKey } from "@scure/bip32";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bitcoinChain } from "../../../../src/bitcoin";
import type { Harness } from "../../../helpers";
import { liveHarness } from "../evm/support";
import { startLitecoind, type Litecoind } from "./litecoind";
import { ltcChain, newAccount } from "./support";

/** bitcoinChain's options, checked when it is called; and a key of the wrong network refused. */

let node: Litecoind;
beforeAll(async () => {
  node = await startLitecoind();
}, 60_000);
afterAll(async () => {
  await node?.stop();
});

describe("bitcoinChain options", () => {
  const account = newAccount();
  const other = newAccount();
  const secretUrl = "http://rpcuser:hunter2-secret@127.0.0.1:9332";

  it("names the option at fault and never shows a key, the password or the URL", () => {
    const attempts: Array<[Record<string, unknown>, RegExp]> = [
      [{ coin: "LTC", network: "LTC", rpcUrl: secretUrl, xpub: "xpub-garbage" }, /xpub/],
      [{ coin: "LTC", network: "LTC", rpcUrl: secretUrl, xpub: account.xprv }, /xpub is a private key/],
      [{ coin: "LTC", network: "LTC", rpcUrl: secretUrl, xpub: account.xpub, hotWallet: account.xpub }, /hotWallet must be the account's extended private key/],
      [{ coin: "LTC", network: "LTC", rpcUrl: secretUrl, xpub: account.xpub, hotWallet: other.xprv }, /hotWallet is not the private key of the account/],
      [{ coin: "LTC", network: "LTC", rpcUrl: "ftp://node", xpub: account.xpub }, /rpcUrl must be an http\(s\) URL/],
      [{ coin: "LTC", network: "LTC", rpcUrl: secretUrl }, /xpub is required/],
      [{ coin: "LTC", network: "LTC", rpcUrl: secretUrl, xpub: HDKey.fromMasterSeed(new Uint8Array(32).fill(7)).publicExtendedKey }, /depth|account/i],
      [{ coin: "LTC", network: "LTC", rpcUrl: secretUrl, xpub: account.xpub, feeRate: { fallback: 900, ceiling: 100 } }, /fallback is above feeRate.ceiling/],
      [{ coin: "LTC", network: "LTC", rpcUrl: secretUrl, xpub: account.xpub, confirmation: 3 }, /unknown option\(s\) confirmation/],
      [{ coin: "LTC", network: "LTC", rpcUrl: secretUrl, xpub: account.xpub, gapLimit: 0 }, /gapLimit/],
      [{ coin: "LTC", network: "LTC", rpcUrl: secretUrl, xpub: account.xpub, gapLimit: 2.5 }, /gapLimit/],
    ];
    for (const [options, message] of attempts) {
      let thrown: unknown;
      try {
        bitcoinChain(options as never);
      } catch (error) {
        thrown = error;
      }
      expect(thrown, JSON.stringify(Object.keys(options))).toBeInstanceOf(TypeError);
      const text = (thrown as Error).message;
      expect(text).toMatch(message);
      for (const secret of ["hunter2-secret", account.xprv.slice(4, 40), other.xprv.slice(4, 40), account.xpub.slice(4, 40)])
        expect(text).not.toContain(secret);
    }
  });

  it("refuses to issue addresses from a mainnet key on a regtest node (503 naming why), and issues them from a test key", async () => {
    const seed = new Uint8Array(64).fill(3);
    const mainnet = HDKey.fromMasterSeed(seed).derive("m/84'/2'/0'");
    const wrong = await liveHarness([bitcoinChain({ coin: "LTC", network: "LTC", rpcUrl: node.rpcUrl, xpub: mainnet.publicExtendedKey })]);
    const refused = await wrong.post("/v1/payments", { amount: "1", currency: "LTC" }, wrong.liveKey);
    expect(refused.status).toBe(503);
    expect(refused.body.message).toMatch(/node is on regtest, but the xpub given is a xpub key for main/);
    expect(refused.text).not.toContain(node.rpcPassword);
    await wrong.router.close();

    const right: Harness = await liveHarness([ltcChain(node, newAccount(), { hotWallet: false })]);
    const issued = await right.post("/v1/payments", { amount: "1", currency: "LTC" }, right.liveKey);
    expect(issued.status, issued.text).toBe(200);
    expect(issued.body.address).toMatch(/^rltc1q/);
    await right.router.close();
  });
});
