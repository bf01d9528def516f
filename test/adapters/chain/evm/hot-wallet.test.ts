import { PGlite } from "@electric-sql/pglite";
import { createPublicClient, http, parseEther, type Address, type Hash, type Hex, type PublicClient } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HotWallet } from "../../../../src/adapters/chain/evm/hot-wallet";
import type { HotWalletOptions } from "../../../../src/adapters/chain/evm/hot-wallet-types";
import { nodeError, rpcSecrets } from "../../../../src/adapters/rpc-errors";
import type { ChainStateStore } from "../../../../src/core/ports/chain";
import { memoryStorage } from "../../../../src/adapters/storage/memory/index";
import type { Storage } from "../../../../src/core/ports/storage/index";
import { chainHost } from "../../../../src/core/chains/chains";
import { CurrencyCatalog, DEFAULT_CURRENCIES, DEFAULT_FIAT } from "../../../../src/currencies";
import { postgresStorage } from "../../../../src/postgres";
import { recordingLogger } from "../../../helpers";
import { freePort, startAnvil, type Anvil } from "./anvil";

/**
 * A contract that reverts on any call, ETH transfers included. Runtime `60006000fd` is
 * PUSH1 0, PUSH1 0, REVERT. The init code before it copies those 5 bytes to memory and returns
 * them as the contract's code: PUSH1 5 (length), PUSH1 0x0c (offset of the runtime in this
 * code: the 12 bytes of init), PUSH1 0 (memory), CODECOPY, PUSH1 5, PUSH1 0, RETURN.
 */
const REVERTING_CONTRACT_INIT: Hex = "0x6005600c60003960056000f360006000fd";

let node: Anvil;
/** PGlite takes seconds to start (WebAssembly): started once, beside anvil. */
let pglite: PGlite;
const logger = recordingLogger();
/** A key holding nothing: the node refuses what it signs. */
const unfundedKey = generatePrivateKey();
/** Every message a HotWallet threw in this file, checked for secrets at the end. */
const thrown: string[] = [];

beforeAll(async () => {
  [node, pglite] = await Promise.all([startAnvil(), PGlite.create()]);
}, 60_000);
afterAll(async () => {
  await Promise.all([node?.stop(), pglite?.close()]);
});

function memoryState(): ChainStateStore {
  return chainHost({ storage: memoryStorage(), currencies: new CurrencyCatalog(DEFAULT_CURRENCIES, DEFAULT_FIAT), mode: "live", logger: console }).state;
}

function stateOf(storage: Storage): ChainStateStore {
  return chainHost({ storage, currencies: new CurrencyCatalog(DEFAULT_CURRENCIES, DEFAULT_FIAT), mode: "live", logger: console }).state;
}

/** The hot wallet of dev account `index` (each test its own, so nonces never mix between tests). */
function hotWallet(index: number, state: ChainStateStore, overrides: Partial<HotWalletOptions> = {}): HotWallet {
  const account = privateKeyToAccount(node.privateKey(index));
  return new HotWallet({
    client: node.public,
    account,
    chainId: node.chainId,
    state,
    namespace: `evm:${node.chainId}:${account.address}`,
    logger,
    secrets: [...rpcSecrets(node.rpcUrl), node.privateKey(index)],
    label: "ETH node",
    ...overrides,
  });
}

/** A fresh address holding nothing, so a balance check counts exactly what the test sent. */
function freshAddress(): Address {
  return privateKeyToAccount(generatePrivateKey()).address;
}

async function rejection(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    thrown.push((error as Error).message);
    return error as Error;
  }
  throw new Error("expected a rejection");
}

const mined = (hash: Hash) => node.public.waitForTransactionReceipt({ hash, pollingInterval: 20, timeout: 10_000 });

describe("HotWallet on anvil", () => {
  it("sends a value transfer and reports it confirmed once the confirmations are reached", async () => {
    const wallet = hotWallet(1, memoryState());
    const to = freshAddress();
    const hash = await wallet.send("payout_1", { to, value: 1234n });
    const receipt = await mined(hash);
    expect(await wallet.status("payout_1", 3)).toEqual({ status: "pending" });
    await node.mine(2);
    expect(await wallet.status("payout_1", 3)).toEqual({ status: "confirmed", blockNumber: receipt.blockNumber });
    expect(await wallet.send("payout_1", { to, value: 1234n })).toBe(hash);
    expect(await node.public.getBalance({ address: to })).toBe(1234n);
  });

  it("gives twenty parallel sends from one wallet twenty consecutive nonces, all mined", async () => {
    const wallet = hotWallet(2, memoryState());
    const to = freshAddress();
    const first = await node.public.getTransactionCount({ address: wallet.address });
    const ids = Array.from({ length: 20 }, (_, i) => `par_${i}`);
    const hashes = await Promise.all(ids.map((id, i) => wallet.send(id, { to, value: BigInt(i + 1) })));
    const receipts = await Promise.all(hashes.map(mined));
    expect(receipts.every((receipt) => receipt.status === "success")).toBe(true);
    const nonces = (await Promise.all(ids.map((id, i) => wallet.sign(id, { to, value: BigInt(i + 1) })))).map((signed) => signed.nonce);
    expect(nonces.sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => first + i));
    expect(new Set(hashes).size).toBe(20);
    expect(await node.public.getBalance({ address: to })).toBe(210n);
  });

  it("lets two instances on one PostgreSQL state send ten each without a nonce collision, and one id only once", async () => {
    const storageA = postgresStorage({ pglite });
    await storageA.ready;
    const storageB = postgresStorage({ pglite });
    await storageB.ready;
    try {
      const a = hotWallet(3, stateOf(storageA));
      const b = hotWallet(3, stateOf(storageB));
      const to = freshAddress();
      const first = await node.public.getTransactionCount({ address: a.address });
      const sends = Array.from({ length: 10 }, (_, i) => [a.send(`a_${i}`, { to, value: 1n }), b.send(`b_${i}`, { to, value: 100n })]).flat();
      // The same id from both instances at once: one transaction, one payment.
      const twice = [a.send("both", { to, value: 10_000n }), b.send("both", { to, value: 10_000n })];
      const hashes = await Promise.all([...sends, ...twice]);
      expect(hashes[20]).toBe(hashes[21]);
      await Promise.all(hashes.map(mined));
      expect(await node.public.getTransactionCount({ address: a.address })).toBe(first + 21);
      expect(await node.public.getBalance({ address: to })).toBe(10n + 1000n + 10_000n);
      // Each instance sees what the other signed.
      expect((await a.sign("b_4", { to, value: 100n })).hash).toBe(hashes[9]);
    } finally {
      await storageA.close();
      await storageB.close();
    }
  });

  it("after a crash between sign and broadcast, sends the stored transaction once and pays once", async () => {
    const state = memoryState();
    const to = freshAddress();
    const before = hotWallet(4, state);
    const signed = await before.sign("crash_1", { to, value: 777n });
    expect(await node.public.getTransaction({ hash: signed.hash }).catch(() => null)).toBeNull();

    const restarted = hotWallet(4, state);
    expect(await restarted.send("crash_1", { to, value: 777n })).toBe(signed.hash);
    const receipt = await mined(signed.hash);
    expect(receipt.status).toBe("success");
    const count = await node.public.getTransactionCount({ address: restarted.address });

    // Mined already: the node answers "nonce too low", which means "look it up by hash".
    expect(await restarted.send("crash_1", { to, value: 777n })).toBe(signed.hash);
    expect(await node.public.getBalance({ address: to })).toBe(777n);
    expect(await node.public.getTransactionCount({ address: restarted.address })).toBe(count);
    expect(await restarted.status("crash_1", 1)).toEqual({ status: "confirmed", blockNumber: receipt.blockNumber });
  });

  it("mines a transfer to a reverting contract with the fallback gas and reports it failed", async () => {
    const deployment = await node.wallet.deployContract({ account: node.account(0), abi: [], bytecode: REVERTING_CONTRACT_INIT, chain: null });
    const contract = (await mined(deployment)).contractAddress!;
    const wallet = hotWallet(5, memoryState());

    const error = await rejection(wallet.send("revert_1", { to: contract, value: 1000n }));
    expect(error.message).toMatch(/^ETH node, estimating gas for "revert_1": .*revert/i);
    await expect(wallet.status("revert_1", 1)).rejects.toThrow(/no transaction is stored/);

    const hash = await wallet.send("revert_1", { to: contract, value: 1000n, gasFallback: 50_000n });
    const receipt = await mined(hash);
    expect(receipt.status).toBe("reverted");
    expect((await node.public.getTransaction({ hash })).gas).toBe(50_000n);
    expect(await wallet.status("revert_1", 1)).toEqual({ status: "failed", reason: "reverted" });
    expect(await node.public.getBalance({ address: contract })).toBe(0n);
  });

  it("re-broadcasts a transaction the node dropped from its pool", async () => {
    await node.test.setAutomine(false);
    try {
      const wallet = hotWallet(6, memoryState());
      const to = freshAddress();
      const hash = await wallet.send("drop_1", { to, value: 5n });
      expect(await wallet.status("drop_1", 1)).toEqual({ status: "pending" });
      await node.test.dropTransaction({ hash });
      expect(await node.public.getTransaction({ hash }).catch(() => null)).toBeNull();

      expect(await wallet.status("drop_1", 1)).toEqual({ status: "pending" });
      expect((await node.public.getTransaction({ hash })).hash).toBe(hash);
      await node.mine(1);
      expect(await wallet.status("drop_1", 1)).toMatchObject({ status: "confirmed" });
      expect(await node.public.getBalance({ address: to })).toBe(5n);
    } finally {
      await node.test.setAutomine(true);
    }
  });

  it("reports a stored transaction failed once another transaction took its nonce, confirmations deep", async () => {
    const wallet = hotWallet(7, memoryState());
    const signed = await wallet.sign("lost_1", { to: freshAddress(), value: 9n });
    // Something else signs with the same key and nonce (an operator's manual transfer).
    await node.wallet.sendTransaction({ account: privateKeyToAccount(node.privateKey(7)), to: freshAddress(), value: 1n, nonce: signed.nonce, chain: null });
    expect(await wallet.status("lost_1", 3)).toEqual({ status: "pending" });
    await node.mine(2);
    expect(await wallet.status("lost_1", 3)).toEqual({ status: "failed", reason: `replaced: nonce ${signed.nonce} was used by another transaction` });
  });

  it("logs a failed re-broadcast as an outage, scrubbed (its error once, then a line a check), and reads as pending", async () => {
    const wallet = hotWallet(1, memoryState(), { account: privateKeyToAccount(unfundedKey), secrets: [...rpcSecrets(node.rpcUrl), unfundedKey] });
    const signed = await wallet.sign("unfunded_1", { to: freshAddress(), value: 1n });
    const logged = logger.lines.length;
    for (let check = 0; check < 3; check++) expect(await wallet.status("unfunded_1", 1)).toEqual({ status: "pending" });
    const name = `ETH node: re-broadcast of the dropped transaction "unfunded_1" \\(${signed.hash}\\)`;
    expect(logger.lines.slice(logged)).toEqual([
      expect.stringMatching(new RegExp(`^error ${name} failed; it is retried every status check, .*: ETH node, broadcasting .*insufficient funds`, "i")),
      expect.stringMatching(new RegExp(`^warn ${name} still failing \\(2 status checks in a row\\): .*insufficient funds`, "i")),
      expect.stringMatching(new RegExp(`^warn ${name} still failing \\(3 status checks in a row\\)`, "i")),
    ]);
    for (const line of logger.lines.slice(logged)) {
      expect(line).not.toContain(unfundedKey.slice(2));
      expect(line).not.toContain(node.rpcUrl);
    }
  });

  it("throws what the node said, and nothing of the hot key", async () => {
    const wallet = hotWallet(8, memoryState());
    const error = await rejection(wallet.send("broke_1", { to: freshAddress(), value: parseEther("1000000") }));
    expect(error.message).toMatch(/^ETH node, broadcasting 0x[0-9a-f]{64}: .*insufficient funds/i);
    expect(error.cause).toBeUndefined();

    const otherChain = hotWallet(8, memoryState(), { chainId: 1 });
    const mismatch = await rejection(otherChain.send("chain_1", { to: freshAddress(), value: 1n }));
    expect(mismatch.message).toBe("ETH node: the node serves chain 31337, the hot wallet signs for chain 1: check the RPC URL and chainId");
  });

  it("never shows the node URL, its password or API key in an error", async () => {
    const port = await freePort();
    const url = `http://user:s3cret@127.0.0.1:${port}/v3/KEY0123456789?token=tok9876`;
    const client = createPublicClient({ transport: http(url, { retryCount: 0 }), cacheTime: 0 }) as PublicClient;
    const wallet = hotWallet(9, memoryState(), { client, secrets: [...rpcSecrets(url), node.privateKey(9)] });
    const error = await rejection(wallet.send("down_1", { to: freshAddress(), value: 1n }));
    expect(error.message).toMatch(/^ETH node, reading the chain id: HTTP request failed/);
    for (const secret of ["s3cret", "KEY0123456789", "tok9876", url, `127.0.0.1:${port}/v3`]) expect(error.message).not.toContain(secret);
    expect(error.cause).toBeUndefined();
  });

  it("never logs nor throws a hot key or the node URL", () => {
    expect(thrown.length).toBeGreaterThan(0);
    const texts = [...thrown, ...logger.lines];
    const keys = [...Array.from({ length: 9 }, (_, i) => node.privateKey(i + 1)), unfundedKey].map((key) => key.slice(2));
    for (const text of texts) for (const key of keys) expect(text).not.toContain(key);
    for (const text of texts) expect(text).not.toContain(node.rpcUrl);
  });
});

describe("rpcSecrets and nodeError", () => {
  it("lists the URL and its credential-bearing parts", () => {
    expect(rpcSecrets("https://alice:p%40ss@rpc.example/v3/abc?key=xyz")).toEqual(
      expect.arrayContaining(["https://alice:p%40ss@rpc.example/v3/abc?key=xyz", "alice", "p%40ss", "p@ss", "/v3/abc", "?key=xyz", "key=xyz"]),
    );
    expect(rpcSecrets("http://127.0.0.1:8545")).toEqual(["http://127.0.0.1:8545", "http://127.0.0.1:8545/"]);
  });

  it("keeps the short reason, redacts every secret and attaches no cause", () => {
    const source = Object.assign(new Error("long message with http://alice:pw@host/k"), {
      shortMessage: "HTTP request failed.",
      details: "refused by http://alice:pw@host/k",
    });
    const error = nodeError(source, { label: "ETH node", secrets: rpcSecrets("http://alice:pw@host/k") });
    expect(error.message).toBe("ETH node: HTTP request failed: refused by [redacted]");
    expect(error.cause).toBeUndefined();
    expect(nodeError("pw leaked", { label: "X", secrets: ["pw"] }).message).toBe("X: [redacted] leaked");
  });
});
