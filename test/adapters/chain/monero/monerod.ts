import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "../evm/anvil";

/**
 * A real Monero node for tests: Debian's monerod 0.18 in regtest (`--regtest --offline
 * --fixed-difficulty 1`), with three monero-wallet-rpc processes on it (a wallet RPC holds one
 * wallet open at a time): the payer's, the service's view-only wallet's (where the merchant's
 * full wallet is made first, to take its address and view key from), and the hot wallet's. One
 * per test file, on free ports of 127.0.0.1 and fresh directories, started and stopped by the
 * test itself.
 *
 * Funding: 20 blocks are mined to the hot wallet and then 120 to the payer (coinbase outputs
 * unlock after 60 blocks, and rings need 16 outputs on chain): about 15 s on an idle machine.
 */

export const MONEROD_BINARY = "/usr/bin/monerod";
export const WALLET_RPC_BINARY = "/usr/bin/monero-wallet-rpc";

/** A wallet RPC error (Monero's code and words). */
export class MoneroTestRpcError extends Error {
  constructor(
    readonly method: string,
    readonly code: number,
    readonly serverMessage: string,
  ) {
    super(`${method}: ${serverMessage} (code ${code})`);
  }
}

/** A JSON-RPC endpoint of the harness. */
export type Rpc = <T = Record<string, unknown>>(method: string, params?: Record<string, unknown>) => Promise<T>;

/** The running node and wallets. */
export interface Monerod {
  daemonUrl: string;
  /** The wallet RPC the adapter's view-only wallet lives in. */
  viewWalletRpcUrl: string;
  /** The hot wallet's wallet RPC, its wallet "hot" open, with `hotPassword`. */
  hotWalletRpcUrl: string;
  hotWalletName: string;
  hotPassword: string;
  hotAddress: string;
  /** The merchant's primary address and private view key (a full wallet made for the test). */
  merchant: { address: string; viewKey: string };
  /** Another wallet's address and view key: the payer's. */
  payerKeys: { address: string; viewKey: string };
  daemon: Rpc;
  payer: Rpc;
  hot: Rpc;
  /** POST to one of monerod's other endpoints ("/pop_blocks"). */
  daemonOther<T = Record<string, unknown>>(path: string, body: Record<string, unknown>): Promise<T>;
  /** Mines `blocks` blocks (to the payer). */
  mine(blocks: number): Promise<void>;
  /** Blocks in the chain (head + 1). */
  height(): Promise<number>;
  /** The payer sends `piconero` to `address`; resolves with the tx hash once the node has it in its pool. */
  pay(address: string, piconero: bigint): Promise<string>;
  /** A fresh payout destination: a subaddress of the payer's account 1 (which it never spends from). */
  destination(): Promise<string>;
  /** What a destination of `destination()` has received (its balance, mined outputs). */
  received(address: string): Promise<bigint>;
  /** Takes the last `blocks` blocks off the chain (their transactions go back to the pool). */
  popBlocks(blocks: number): Promise<void>;
  /** Empties the node's pool. */
  flushPool(): Promise<void>;
  /** The transaction hashes in the pool. */
  pool(): Promise<string[]>;
  stop(): Promise<void>;
}

interface Process {
  child: ChildProcess;
  exited: Promise<void>;
  output: () => string;
}

function launch(binary: string, args: string[]): Process {
  const child = spawn(binary, args, { stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  const keep = (chunk: unknown) => {
    output = (output + String(chunk)).slice(-4000);
  };
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  return { child, exited, output: () => output };
}

/** One POST on a connection of its own (no keep-alive: the processes then stop at once). */
function post(url: string, body: string, timeoutMs = 120_000): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      url,
      { method: "POST", agent: false, timeout: timeoutMs, headers: { "content-type": "application/json", connection: "close" } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString("utf8") }));
        res.on("error", reject);
      },
    );
    req.on("timeout", () => req.destroy(new Error(`${url} gave no answer within ${timeoutMs} ms`)));
    req.on("error", reject);
    req.end(body);
  });
}

function rpcAt(base: string): Rpc {
  let id = 0;
  return async <T>(method: string, params: Record<string, unknown> = {}) => {
    // Amounts go out as JSON numbers written from bigints: exact.
    const body = JSON.stringify({ jsonrpc: "2.0", id: ++id, method, params }, (_key, value) => (typeof value === "bigint" ? `@@${value}@@` : value)).replace(
      /"@@(\d+)@@"/g,
      "$1",
    );
    const { status, text } = await post(`${base}/json_rpc`, body);
    let answer: { result?: T; error?: { code: number; message: string } };
    try {
      // Amounts in answers become strings (a 20-digit number would lose digits in a double).
      answer = JSON.parse(text.replace(/("(?:amount|balance|unlocked_balance|fee)"\s*:\s*)(\d+)/g, '$1"$2"'));
    } catch {
      throw new Error(`${method}: HTTP ${status} ${text.slice(0, 200)}`);
    }
    if (answer.error) throw new MoneroTestRpcError(method, answer.error.code, answer.error.message);
    return answer.result as T;
  };
}

async function waitFor(what: string, proc: Process, probe: () => Promise<unknown>, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (proc.child.exitCode !== null || proc.child.signalCode !== null) throw new Error(`${what} exited: ${proc.output()}`);
    try {
      await probe();
      return;
    } catch {
      if (Date.now() > deadline) throw new Error(`${what} did not answer within ${timeoutMs} ms: ${proc.output()}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

/** Starts the node and its wallet RPCs and funds the payer and the hot wallet. */
export async function startMonerod(options: { hotBlocks?: number; payerBlocks?: number } = {}): Promise<Monerod> {
  for (const binary of [MONEROD_BINARY, WALLET_RPC_BINARY])
    if (!existsSync(binary)) throw new Error(`${binary} is missing: apt-get install -y monero (.ci/run does).`);
  const dir = mkdtempSync(join(tmpdir(), "monerod-"));
  const processes: Process[] = [];
  const stopAll = async () => {
    for (const proc of processes) if (proc.child.exitCode === null && proc.child.signalCode === null) proc.child.kill("SIGTERM");
    await Promise.all(
      processes.map(async (proc) => {
        const timer = setTimeout(() => proc.child.kill("SIGKILL"), 15_000);
        await proc.exited;
        clearTimeout(timer);
      }),
    );
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const rpcPort = await freePort();
    const p2pPort = await freePort();
    const daemonUrl = `http://127.0.0.1:${rpcPort}`;
    const node = launch(MONEROD_BINARY, [
      "--regtest",
      "--offline",
      "--fixed-difficulty",
      "1",
      "--data-dir",
      join(dir, "node"),
      "--rpc-bind-ip",
      "127.0.0.1",
      "--rpc-bind-port",
      String(rpcPort),
      "--p2p-bind-ip",
      "127.0.0.1",
      "--p2p-bind-port",
      String(p2pPort),
      "--no-igd",
      // No ZMQ endpoint: its fixed default port would clash between nodes of parallel test files.
      "--no-zmq",
      "--non-interactive",
      "--log-level",
      "0",
      "--max-txpool-weight",
      "100000000",
    ]);
    processes.push(node);
    const daemon = rpcAt(daemonUrl);
    await waitFor("monerod", node, () => daemon("get_info"));

    const startWallet = async (name: string) => {
      const port = await freePort();
      const proc = launch(WALLET_RPC_BINARY, [
        "--daemon-address",
        `127.0.0.1:${rpcPort}`,
        "--rpc-bind-ip",
        "127.0.0.1",
        "--rpc-bind-port",
        String(port),
        "--disable-rpc-login",
        "--wallet-dir",
        join(dir, name),
        "--trusted-daemon",
        "--non-interactive",
        "--log-level",
        "0",
      ]);
      processes.push(proc);
      const url = `http://127.0.0.1:${port}`;
      const rpc = rpcAt(url);
      await waitFor(`monero-wallet-rpc (${name})`, proc, () => rpc("get_version"));
      return { url, rpc };
    };
    const { mkdirSync } = await import("node:fs");
    for (const name of ["payer", "view", "hot"]) mkdirSync(join(dir, name));
    const [payerRpc, viewRpc, hotRpc] = await Promise.all([startWallet("payer"), startWallet("view"), startWallet("hot")]);
    const payer = payerRpc.rpc;
    const hot = hotRpc.rpc;

    const address = async (rpc: Rpc) => (await rpc<{ address: string }>("get_address", { account_index: 0 })).address;
    const viewKey = async (rpc: Rpc) => (await rpc<{ key: string }>("query_key", { key_type: "view_key" })).key;
    const hotPassword = "hot-wallet-password-1";
    await Promise.all([
      payer("create_wallet", { filename: "payer", language: "English" }),
      hot("create_wallet", { filename: "hot", password: hotPassword, language: "English" }),
      viewRpc.rpc("create_wallet", { filename: "merchant", language: "English" }),
    ]);
    const merchant = { address: await address(viewRpc.rpc), viewKey: await viewKey(viewRpc.rpc) };
    await viewRpc.rpc("close_wallet");
    const payerKeys = { address: await address(payer), viewKey: await viewKey(payer) };
    const hotAddress = await address(hot);
    await payer("create_account", { label: "destinations" });

    const mineTo = (to: string, blocks: number) => daemon("generateblocks", { amount_of_blocks: blocks, wallet_address: to });
    await mineTo(hotAddress, options.hotBlocks ?? 20);
    await mineTo(payerKeys.address, options.payerBlocks ?? 120);
    await Promise.all([payer("refresh"), hot("refresh")]);

    const daemonOther = async <T>(path: string, body: Record<string, unknown>): Promise<T> => {
      const { text } = await post(`${daemonUrl}${path}`, JSON.stringify(body));
      return JSON.parse(text) as T;
    };
    return {
      daemonUrl,
      viewWalletRpcUrl: viewRpc.url,
      hotWalletRpcUrl: hotRpc.url,
      hotWalletName: "hot",
      hotPassword,
      hotAddress,
      merchant,
      payerKeys,
      daemon,
      payer,
      hot,
      daemonOther,
      mine: async (blocks) => {
        await mineTo(payerKeys.address, blocks);
      },
      height: async () => Number((await daemon<{ count: number }>("get_block_count")).count),
      pay: async (to, piconero) => {
        // The payer's wallet RPC answers -38 "no connection to daemon" while monerod is too busy to
        // answer its own check in time (a loaded machine): nothing was sent, so ask again.
        for (let attempt = 1; ; attempt++) {
          try {
            await payer("refresh");
            const sent = await payer<{ tx_hash: string }>("transfer", { destinations: [{ address: to, amount: piconero }], account_index: 0 });
            return sent.tx_hash;
          } catch (error) {
            if (!(error instanceof MoneroTestRpcError && error.code === -38) || attempt === 10) throw error;
            await new Promise((resolve) => setTimeout(resolve, 1000));
          }
        }
      },
      destination: async () => (await payer<{ address: string }>("create_address", { account_index: 1 })).address,
      received: async (to) => {
        await payer("refresh");
        const { index } = await payer<{ index: { major: number; minor: number } }>("get_address_index", { address: to });
        const balance = await payer<{ per_subaddress?: Array<{ address_index: number; balance: string }> }>("get_balance", {
          account_index: index.major,
          address_indices: [index.minor],
        });
        return BigInt(balance.per_subaddress?.find((entry) => entry.address_index === index.minor)?.balance ?? "0");
      },
      popBlocks: async (blocks) => {
        const answer = await daemonOther<{ status: string }>("/pop_blocks", { nblocks: blocks });
        if (answer.status !== "OK") throw new Error(`pop_blocks: ${JSON.stringify(answer)}`);
      },
      flushPool: async () => {
        await daemon("flush_txpool");
      },
      pool: async () => (await daemonOther<{ tx_hashes?: string[] }>("/get_transaction_pool_hashes", {})).tx_hashes ?? [],
      stop: stopAll,
    };
  } catch (error) {
    await stopAll();
    throw error;
  }
}
