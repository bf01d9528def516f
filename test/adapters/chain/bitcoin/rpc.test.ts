import { createServer, type Server, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BITCOIN_RPC_CODES, BitcoinRpcError, createBitcoinRpc, toSatoshis, type BitcoinRpc } from "../../../../src/adapters/chain/bitcoin/rpc";
import { AmountFormatError, formatDecimal, parseNumber } from "../../../../src/money";
import { freePort } from "../evm/anvil";
import { startLitecoind, type Litecoind } from "./litecoind";

let node: Litecoind;
let rpc: BitcoinRpc;
beforeAll(async () => {
  node = await startLitecoind();
  await node.fund();
  rpc = createBitcoinRpc({ url: node.rpcUrl, timeoutMs: 10_000, label: "litecoin node" });
}, 60_000);
afterAll(async () => {
  await node?.stop();
}, 60_000);

/** The error `promise` rejects with (fails the test if it resolves). */
async function rejection(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error("expected a rejection");
}

function expectNoSecrets(error: Error) {
  const text = `${error.message} ${String(error.stack)} ${JSON.stringify(error)}`;
  expect(text).not.toContain(node.rpcPassword);
  expect(text).not.toContain(node.rpcUser);
  expect(text).not.toContain(node.rpcUrl);
  expect(error).not.toHaveProperty("cause");
}

describe("reading the chain", () => {
  it("talks to the node with the credentials of the URL and reads numbers as their text", async () => {
    const info = await rpc.call<{ chain: string; blocks: string }>("getblockchaininfo");
    expect(info.chain).toBe("regtest");
    expect(info.blocks).toBe(String(await node.height()));
  });

  it("reads a block's outputs exactly, amounts as 8-decimal text", async () => {
    const to = await node.newAddress();
    const txid = await node.pay(to, "0.12345678");
    const [hash] = await node.mine(1);
    const block = await rpc.call<{
      height: string;
      tx: Array<{
        txid: string;
        vout: Array<{ value: string; n: string; scriptPubKey: { hex: string; type: string; addresses?: string[]; address?: string } }>;
      }>;
    }>("getblock", [hash, 2]);
    const tx = block.tx.find((candidate) => candidate.txid === txid)!;
    const paid = tx.vout.find((output) => output.scriptPubKey.addresses?.includes(to))!;
    // Litecoin Core 0.21's shape: { value: 0.12345678, n, scriptPubKey: { asm, hex, reqSigs,
    // type: "witness_v0_keyhash", addresses: ["rltc1..."] } }; Bitcoin Core 22+ has `address`.
    expect(paid.value).toBe("0.12345678");
    expect(toSatoshis(paid.value)).toBe(12_345_678n);
    expect(paid.scriptPubKey.type).toBe("witness_v0_keyhash");
    expect(paid.scriptPubKey.address).toBeUndefined();
    expect(paid.scriptPubKey.hex).toMatch(/^0014[0-9a-f]{40}$/);
    // Every amount comes with 8 decimals, even zero (the coinbase's witness commitment).
    const coinbase = block.tx[0]!;
    expect(coinbase.vout.find((output) => output.scriptPubKey.type === "nulldata")?.value).toBe("0.00000000");
  });

  it("fetches several block hashes in one batch, in the order asked", async () => {
    const heights = [0, 1, 2, 50, 101];
    const hashes = await rpc.batch<string>(heights.map((height) => ({ method: "getblockhash", params: [height] })));
    expect(hashes).toEqual(await Promise.all(heights.map((height) => node.blockHash(height))));
    expect(await rpc.batch([])).toEqual([]);
  });

  it("reports each call of a batch apart with batchSettled, and throws the first error with batch", async () => {
    const calls = [{ method: "getblockhash", params: [1] }, { method: "getblockhash", params: [99_999] }, { method: "getblockcount" }];
    const outcomes = await rpc.batchSettled(calls);
    expect(outcomes[0]).toEqual({ ok: true, result: await node.blockHash(1) });
    expect(outcomes[1]!.ok).toBe(false);
    expect(!outcomes[1]!.ok && outcomes[1]!.error.code).toBe(BITCOIN_RPC_CODES.INVALID_PARAMETER);
    expect(outcomes[2]!.ok).toBe(true);
    const error = await rejection(rpc.batch(calls));
    expect(error).toBeInstanceOf(BitcoinRpcError);
    expect((error as BitcoinRpcError).nodeMessage).toBe("Block height out of range");
  });

  it("answers an unknown transaction with code -5", async () => {
    const error = await rejection(rpc.call("getrawtransaction", ["00".repeat(32)]));
    expect(error).toBeInstanceOf(BitcoinRpcError);
    expect((error as BitcoinRpcError).code).toBe(BITCOIN_RPC_CODES.INVALID_ADDRESS_OR_KEY);
    expect((error as BitcoinRpcError).nodeMessage).toMatch(/^No such mempool transaction/);
  });
});

describe("broadcasting", () => {
  it("answers the txid again for a transaction already in the mempool (no error on 0.21)", async () => {
    const txid = await node.pay(await node.newAddress(), "0.01");
    const hex = await node.rawTransaction(txid);
    expect(await rpc.call("sendrawtransaction", [hex])).toBe(txid);
    await node.mine(1);
  });

  it("refuses a transaction already mined with code -27", async () => {
    const txid = await node.pay(await node.newAddress(), "0.02");
    const hex = await node.rawTransaction(txid);
    await node.mine(1);
    const error = await rejection(rpc.call("sendrawtransaction", [hex]));
    expect(error).toBeInstanceOf(BitcoinRpcError);
    expect((error as BitcoinRpcError).code).toBe(BITCOIN_RPC_CODES.VERIFY_ALREADY_IN_CHAIN);
    expect((error as BitcoinRpcError).nodeMessage).toBe("Transaction already in block chain");
    expect(error.message).toBe("litecoin node: sendrawtransaction failed: Transaction already in block chain (code -27)");
  });

  it("refuses a transaction mined and then spent in full with -25, as if it had lost to a conflict", async () => {
    // 0.21 says "already in block chain" only while some output of the transaction is unspent;
    // once all are spent it cannot tell a mined transaction from a double-spent one.
    const txid = await node.pay(await node.newAddress(), "0.03");
    const hex = await node.rawTransaction(txid);
    await node.mine(1);
    const decoded = await node.decode(hex);
    const total = decoded.vout.reduce((sum, output) => sum + parseNumber(output.value, 8), 0n);
    const inputs = decoded.vout.map((output) => ({ txid, vout: output.n }));
    const spend = await node.call<string>("createrawtransaction", inputs, [{ [await node.newAddress()]: formatDecimal(total - 10_000n, 8) }]);
    const signed = await node.wallet<{ hex: string }>("signrawtransactionwithwallet", spend);
    await node.call("sendrawtransaction", signed.hex);
    await node.mine(1);
    const error = await rejection(rpc.call("sendrawtransaction", [hex]));
    expect((error as BitcoinRpcError).code).toBe(BITCOIN_RPC_CODES.VERIFY_ERROR);
    expect((error as BitcoinRpcError).nodeMessage).toBe("bad-txns-inputs-missingorspent");
  });

  it("refuses a conflict of a waiting transaction with -26, and the loser of a mined conflict with -25", async () => {
    const txid = await node.pay(await node.newAddress(), "0.04");
    const hex = await node.rawTransaction(txid);
    const conflict = await node.conflictingTransaction(txid);
    const refused = await rejection(rpc.call("sendrawtransaction", [conflict.hex]));
    expect((refused as BitcoinRpcError).code).toBe(BITCOIN_RPC_CODES.VERIFY_REJECTED);
    expect((refused as BitcoinRpcError).nodeMessage).toBe("txn-mempool-conflict");

    await node.doubleSpend(txid);
    const lost = await rejection(rpc.call("sendrawtransaction", [hex]));
    expect((lost as BitcoinRpcError).code).toBe(BITCOIN_RPC_CODES.VERIFY_ERROR);
    expect((lost as BitcoinRpcError).nodeMessage).toBe("bad-txns-inputs-missingorspent");
  });
});

describe("errors", () => {
  it("answers an unknown method with code -32601", async () => {
    const error = await rejection(rpc.call("nosuchmethod"));
    expect(error).toBeInstanceOf(BitcoinRpcError);
    expect((error as BitcoinRpcError).code).toBe(BITCOIN_RPC_CODES.METHOD_NOT_FOUND);
    expect((error as BitcoinRpcError).method).toBe("nosuchmethod");
    expectNoSecrets(error);
  });

  it("says the node refused the credentials on a wrong password, without showing it", async () => {
    const url = new URL(node.rpcUrl);
    url.password = "wrong-password-123";
    const error = await rejection(createBitcoinRpc({ url: url.href, label: "litecoin node" }).call("getblockcount"));
    expect(error).not.toBeInstanceOf(BitcoinRpcError);
    expect(error.message).toMatch(/^litecoin node: the node refused the RPC credentials \(HTTP 401/);
    expect(error.message).not.toContain("wrong-password-123");
    expect(error.message).not.toContain(node.rpcUser);
  });

  it("names a closed port without showing the URL or the credentials", async () => {
    const port = await freePort();
    const url = `http://${node.rpcUser}:${node.rpcPassword}@127.0.0.1:${port}/wallet/payer`;
    const error = await rejection(createBitcoinRpc({ url }).call("getblockcount"));
    expect(error.message).toBe("Bitcoin RPC: getblockcount failed: fetch failed (ECONNREFUSED)");
    expectNoSecrets(error);
    expect(error.message).not.toContain(String(port));
  });

  it("gives up after timeoutMs on a node that never answers", async () => {
    const sockets: Socket[] = [];
    const server: Server = createServer((socket) => sockets.push(socket));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as { port: number };
    try {
      const slow = createBitcoinRpc({ url: `http://${node.rpcUser}:${node.rpcPassword}@127.0.0.1:${port}`, timeoutMs: 200 });
      const error = await rejection(
        slow.batch([
          { method: "getblockhash", params: [1] },
          { method: "getblockhash", params: [2] },
        ]),
      );
      expect(error.message).toBe("Bitcoin RPC: a batch of 2 (getblockhash x2) got no answer within 200 ms (timeoutMs)");
      expectNoSecrets(error);
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it("stops at the caller's signal", async () => {
    const error = await rejection(rpc.call("getblockcount", [], { signal: AbortSignal.abort() }));
    expect(error.message).toBe("litecoin node: getblockcount was not sent: aborted");
  });

  it("refuses bad options at creation without showing the URL", () => {
    expect(() => createBitcoinRpc({ url: "not a url :pass@" })).toThrow(/url is not a valid URL \(it is not shown here/);
    expect(() => createBitcoinRpc({ url: "ftp://u:secretpw@127.0.0.1" })).toThrow("Bitcoin RPC: url must be http:// or https://, got ftp://");
    expect(() => createBitcoinRpc({ url: node.rpcUrl, timeoutMs: 0 })).toThrow(/timeoutMs must be a positive number/);
  });
});

describe("toSatoshis", () => {
  it("reads the node's 8-decimal amounts exactly, negative ones too", () => {
    expect(toSatoshis("0.12345678")).toBe(12_345_678n);
    expect(toSatoshis("20999999.99999999")).toBe(2_099_999_999_999_999n);
    expect(toSatoshis("-0.00001410")).toBe(-1_410n);
    expect(toSatoshis("0.00000000")).toBe(0n);
  });

  it("refuses more than 8 decimals", () => {
    expect(() => toSatoshis("0.123456789")).toThrow(AmountFormatError);
  });
});
