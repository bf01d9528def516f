import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { formatDecimal, parseNumber } from "../../../../src/money";
import { freePort } from "../evm/anvil";

/**
 * A real Bitcoin-family node for tests: Debian's Litecoin Core 0.21 (`apt-get install litecoind`,
 * Bitcoin Core's RPC) in regtest, one per test file, on free ports of 127.0.0.1 and a fresh
 * datadir, started and stopped by the test itself. A legacy wallet "payer" plays the customer;
 * the service under test needs no wallet.
 *
 * Amounts in answers of `call`/`wallet` are plain JS numbers (JSON.parse): fine for a test's
 * own bookkeeping. Code that must read amounts exactly goes through the adapter's RPC client.
 */

/** Where Debian's package puts the daemon (the /usr/bin wrapper would write into ~/.litecoin). */
export const LITECOIND_BINARY = "/usr/lib/litecoin/litecoind";

/** Sats of extra fee a `conflictingTransaction` pays over the original. */
const CONFLICT_EXTRA_FEE = 10_000n;

/** A JSON-RPC error answered by the node; `code` is Bitcoin Core's (e.g. -5, -26, -27). */
export class LitecoindRpcError extends Error {
  override name = "LitecoindRpcError";
  constructor(
    readonly method: string,
    readonly code: number,
    readonly nodeMessage: string,
  ) {
    super(`litecoind ${method}: ${nodeMessage} (code ${code})`);
  }
}

/** A verbose transaction as `decoderawtransaction` gives it (the fields tests use). */
export interface DecodedTransaction {
  txid: string;
  vin: Array<{ txid?: string; vout?: number; coinbase?: string; sequence: number }>;
  vout: Array<{ value: number; n: number; scriptPubKey: { hex: string; type: string; addresses?: string[] } }>;
}

/** A running litecoind in regtest with its payer wallet. */
export interface Litecoind {
  /** http://user:pass@127.0.0.1:port, credentials in the URL as a host would give them. */
  rpcUrl: string;
  /** The RPC user and password of `rpcUrl`, for tests that need them apart. */
  rpcUser: string;
  rpcPassword: string;
  /** Node RPC (no wallet path). Throws `LitecoindRpcError` for the node's errors. */
  call<T = unknown>(method: string, ...params: unknown[]): Promise<T>;
  /** RPC on /wallet/payer. */
  wallet<T = unknown>(method: string, ...params: unknown[]): Promise<T>;
  /** A fresh bech32 address of the payer (rltc1...). */
  newAddress(): Promise<string>;
  /**
   * Mines `blocks` blocks to `address`, by default a fresh payer address: re-mining to the same
   * address right after an invalidateblock can rebuild the identical invalid block, which the
   * node then refuses. Returns the new blocks' hashes.
   */
  mine(blocks: number, address?: string): Promise<string[]>;
  /** Mines 101 blocks so that the payer has spendable coins (coinbases mature after 100). Once per node. */
  fund(): Promise<void>;
  /** Sends `amountLtc` (a decimal string, at most 8 decimals) from the payer; returns the txid. */
  pay(address: string, amountLtc: string): Promise<string>;
  /** The current height. */
  height(): Promise<number>;
  /** The hash of the block at `height` on the active chain. */
  blockHash(height: number): Promise<string>;
  /** Freezes the process (SIGSTOP): it keeps its port, and every request hangs unanswered, as a hung node's. */
  pause(): void;
  /** Lets a paused process run again (SIGCONT); requests that waited are answered. */
  resume(): void;
  /** invalidateblock: the block and its descendants leave the chain, their transactions go back to the mempool. */
  invalidate(hash: string): Promise<void>;
  /** reconsiderblock: undoes `invalidate`. */
  reconsider(hash: string): Promise<void>;
  /**
   * The raw hex of `txid`: from the mempool or the given block (there is no -txindex), else from
   * the payer's wallet, which knows every transaction it sent.
   */
  rawTransaction(txid: string, blockHash?: string): Promise<string>;
  /** `hex` decoded (decoderawtransaction). */
  decode(hex: string): Promise<DecodedTransaction>;
  /** getrawmempool: the txids waiting. */
  mempool(): Promise<string[]>;
  /**
   * A signed transaction spending the same inputs as the payer's transaction `txid` (unconfirmed)
   * to `toAddress` (default a fresh payer address), paying more fee. Not broadcast: the wallet
   * does not signal RBF (0.21's default), so the node would refuse it with "txn-mempool-conflict"
   * while the original waits.
   */
  conflictingTransaction(txid: string, toAddress?: string): Promise<{ txid: string; hex: string }>;
  /**
   * Double-spends the payer's unconfirmed transaction `txid`: mines a block holding a conflicting
   * transaction (`generateblock`), which evicts the original from the mempool for good.
   */
  doubleSpend(txid: string, toAddress?: string): Promise<{ txid: string; blockHash: string }>;
  /**
   * `stop` RPC, waits for the exit (SIGKILL after 20 s), removes the datadir. The node waits for
   * idle keep-alive connections to close: after a fetch-based client (the adapter's), whose idle
   * sockets live 4 s, stopping takes about 4 s instead of 0.2 s.
   */
  stop(): Promise<void>;
}

/**
 * Starts litecoind in regtest and waits until its RPC answers (about 1 s), then creates the
 * payer's legacy wallet (this build has no sqlite: descriptor wallets are unavailable).
 * `extraArgs` go on the command line after ours (e.g. "-walletrbf=1").
 */
export async function startLitecoind(options: { extraArgs?: readonly string[] } = {}): Promise<Litecoind> {
  if (!existsSync(LITECOIND_BINARY)) throw new Error(`${LITECOIND_BINARY} is missing: apt-get install -y litecoind (.ci/run does).`);
  const rpcPort = await freePort();
  let p2pPort = await freePort();
  while (p2pPort === rpcPort) p2pPort = await freePort();
  const datadir = mkdtempSync(join(tmpdir(), "litecoind-"));
  const rpcUser = `u${randomBytes(6).toString("hex")}`;
  const rpcPassword = randomBytes(16).toString("hex");
  const args = [
    "-regtest",
    `-datadir=${datadir}`,
    "-server",
    `-rpcport=${rpcPort}`,
    `-port=${p2pPort}`,
    "-rpcbind=127.0.0.1",
    "-rpcallowip=127.0.0.1",
    `-rpcuser=${rpcUser}`,
    `-rpcpassword=${rpcPassword}`,
    // estimatesmartfee has no data on a fresh chain: without a fallback the wallet cannot send.
    "-fallbackfee=0.0001",
    // No peers, no address discovery: the node is alone on loopback.
    "-listen=0",
    "-discover=0",
    "-dnsseed=0",
    "-connect=0",
    "-upnp=0",
    "-txindex=0",
    "-printtoconsole=0",
    "-persistmempool=0",
    // A small keypool keeps createwallet fast; tests ask for a few dozen addresses at most.
    "-keypool=10",
    ...(options.extraArgs ?? []),
  ];
  const child: ChildProcess = spawn(LITECOIND_BINARY, args, { stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  child.stderr?.on("data", (chunk) => (stderr += String(chunk)));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const running = () => child.exitCode === null && child.signalCode === null;
  const cleanup = () => rmSync(datadir, { recursive: true, force: true });
  const logTail = () => {
    const log = join(datadir, "regtest", "debug.log");
    return existsSync(log) ? readFileSync(log, "utf8").split("\n").slice(-15).join("\n") : "";
  };

  const base = `http://127.0.0.1:${rpcPort}`;
  const authorization = `Basic ${Buffer.from(`${rpcUser}:${rpcPassword}`).toString("base64")}`;
  let id = 0;
  const rpc = async <T>(path: string, method: string, params: unknown[]): Promise<T> => {
    const { status, text } = await post(`${base}${path}`, authorization, JSON.stringify({ jsonrpc: "1.0", id: ++id, method, params }));
    let body: { result?: T; error?: { code: number; message: string } | null };
    try {
      body = JSON.parse(text);
    } catch {
      throw new Error(`litecoind ${method}: HTTP ${status} ${text.slice(0, 200)}`);
    }
    if (body.error) throw new LitecoindRpcError(method, body.error.code, body.error.message);
    return body.result as T;
  };
  const call = <T = unknown>(method: string, ...params: unknown[]) => rpc<T>("/", method, params);
  const wallet = <T = unknown>(method: string, ...params: unknown[]) => rpc<T>("/wallet/payer", method, params);

  const deadline = Date.now() + 30_000;
  for (;;) {
    if (!running()) {
      const log = logTail();
      cleanup();
      throw new Error(`litecoind exited (${child.exitCode ?? child.signalCode}): ${stderr}${log}`);
    }
    try {
      await call("getblockchaininfo");
      break;
    } catch {
      // Connection refused until the RPC server binds; then -28 "Loading..." during warm-up.
      if (Date.now() > deadline) {
        child.kill("SIGKILL");
        await exited;
        const log = logTail();
        cleanup();
        throw new Error(`litecoind did not answer on ${base} within 30 s: ${stderr}${log}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  try {
    // createwallet name disable_private_keys blank passphrase avoid_reuse descriptors
    await call("createwallet", "payer", false, false, "", false, false);
  } catch (error) {
    child.kill("SIGKILL");
    await exited;
    cleanup();
    throw error;
  }

  const newAddress = () => wallet<string>("getnewaddress");
  const mine = async (blocks: number, address?: string) => call<string[]>("generatetoaddress", blocks, address ?? (await newAddress()));
  const rawTransaction = async (txid: string, blockHash?: string) => {
    try {
      return await call<string>("getrawtransaction", txid, false, ...(blockHash ? [blockHash] : []));
    } catch (error) {
      if (blockHash || !(error instanceof LitecoindRpcError) || error.code !== -5) throw error;
      return (await wallet<{ hex: string }>("gettransaction", txid)).hex;
    }
  };
  const decode = (hex: string) => call<DecodedTransaction>("decoderawtransaction", hex);
  const conflictingTransaction = async (txid: string, toAddress?: string) => {
    const original = await wallet<{ hex: string; fee: number }>("gettransaction", txid);
    const decoded = await decode(original.hex);
    // Inputs = outputs + fee (the wallet reports its fee negative); the conflict pays it all to
    // one address, less a higher fee. Sats are counted in bigint from the node's 8-decimal numbers.
    const outputs = decoded.vout.reduce((sum, output) => sum + parseNumber(output.value, 8), 0n);
    const fee = -parseNumber(original.fee, 8);
    const amount = outputs - fee - CONFLICT_EXTRA_FEE;
    if (amount <= 0n) throw new Error(`transaction ${txid} moves too little to double-spend with a higher fee`);
    const inputs = decoded.vin.map((input) => ({ txid: input.txid, vout: input.vout }));
    const unsigned = await call<string>("createrawtransaction", inputs, [{ [toAddress ?? (await newAddress())]: formatDecimal(amount, 8) }]);
    const signed = await wallet<{ hex: string; complete: boolean; errors?: unknown[] }>("signrawtransactionwithwallet", unsigned);
    if (!signed.complete) throw new Error(`the payer could not sign a conflict of ${txid}: ${JSON.stringify(signed.errors)}`);
    return { txid: (await decode(signed.hex)).txid, hex: signed.hex };
  };

  return {
    rpcUrl: `http://${rpcUser}:${rpcPassword}@127.0.0.1:${rpcPort}`,
    rpcUser,
    rpcPassword,
    call,
    wallet,
    newAddress,
    mine,
    fund: async () => {
      await mine(101);
    },
    // Bitcoin Core's RPC reads an amount from a JSON string as well as from a number (checked on
    // 0.21: "0.1" is accepted, "0.123456789" refused with -3 "Invalid amount"), so the decimal
    // text goes to the node untouched: no float on our side.
    pay: (address, amountLtc) => wallet<string>("sendtoaddress", address, amountLtc),
    height: () => call<number>("getblockcount"),
    blockHash: (height) => call<string>("getblockhash", height),
    pause: () => void child.kill("SIGSTOP"),
    resume: () => void child.kill("SIGCONT"),
    invalidate: async (hash) => {
      await call("invalidateblock", hash);
    },
    reconsider: async (hash) => {
      await call("reconsiderblock", hash);
    },
    rawTransaction,
    decode,
    mempool: () => call<string[]>("getrawmempool"),
    conflictingTransaction,
    doubleSpend: async (txid, toAddress) => {
      const conflict = await conflictingTransaction(txid, toAddress);
      const { hash } = await call<{ hash: string }>("generateblock", await newAddress(), [conflict.hex]);
      return { txid: conflict.txid, blockHash: hash };
    },
    stop: async () => {
      if (running()) {
        child.kill("SIGCONT"); // A paused node would answer no "stop" and see no SIGTERM.
        try {
          await call("stop");
        } catch {
          child.kill("SIGTERM");
        }
        const timer = setTimeout(() => child.kill("SIGKILL"), 20_000);
        await exited;
        clearTimeout(timer);
      }
      cleanup();
    },
  };
}

/**
 * One POST on a connection of its own, closed after the answer. Not fetch: its pooled keep-alive
 * connections hold litecoind's HTTP server open at shutdown, and `stop` then took 4 s, not 0.2 s.
 */
function post(url: string, authorization: string, body: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      url,
      { method: "POST", agent: false, timeout: 60_000, headers: { authorization, "content-type": "application/json", connection: "close" } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString("utf8") }));
        res.on("error", reject);
      },
    );
    req.on("timeout", () => req.destroy(new Error("litecoind gave no answer within 60 s")));
    req.on("error", reject);
    req.end(body);
  });
}
