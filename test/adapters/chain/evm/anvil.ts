import { spawn, type ChildProcess } from "node:child_process";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import { dirname, join } from "node:path";
import { createPublicClient, createTestClient, createWalletClient, http, type Hex, type PublicClient, type TestClient, type WalletClient } from "viem";
import { mnemonicToAccount, type HDAccount } from "viem/accounts";
import { foundry } from "viem/chains";

/**
 * A real EVM node for tests: anvil from the npm package @foundry-rs/anvil (the binary comes in
 * its optional dependency for this platform), one per test file, on a free port of 127.0.0.1,
 * started and stopped by the test itself.
 */

/** anvil's well-known development mnemonic: every account holds 10000 ETH. */
export const ANVIL_MNEMONIC = "test test test test test test test test test test test junk";

/** Where the anvil binary of this platform's optional package is. */
export function anvilBinary(): string {
  const require = createRequire(import.meta.url);
  const pkg = `@foundry-rs/anvil-${process.platform}-${process.arch === "x64" ? "amd64" : process.arch}`;
  try {
    return join(dirname(require.resolve(`${pkg}/package.json`)), "bin", "anvil");
  } catch {
    throw new Error(`anvil's binary package ${pkg} is missing: install without --omit=optional (npm ci does).`);
  }
}

/** A free TCP port on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** A running anvil with clients bound to it. */
export interface Anvil {
  rpcUrl: string;
  chainId: number;
  /** Reads, with no response cache (confirmations must never come out stale). */
  public: PublicClient;
  /** anvil_* / evm_* methods: mining, snapshots, reorgs. */
  test: TestClient;
  /** Signs and sends as any of the dev accounts. */
  wallet: WalletClient;
  /** Dev account `index` of the anvil mnemonic (10000 ETH each). */
  account(index: number): HDAccount;
  /** The private key of dev account `index`. */
  privateKey(index: number): Hex;
  /** Mines `blocks` blocks now. */
  mine(blocks?: number): Promise<void>;
  /** Freezes the process (SIGSTOP): it keeps its port, and every request hangs unanswered, as a hung node's. */
  pause(): void;
  /** Lets a paused process run again (SIGCONT); requests that waited are answered. */
  resume(): void;
  /** Stops the node. */
  stop(): Promise<void>;
}

/**
 * Starts anvil and waits until it answers. Blocks are mined only on demand (`mine`) unless
 * `blockTime` is given, so a test decides when confirmations happen. With `automine` (default
 * true) each sent transaction is mined at once in its own block.
 */
export async function startAnvil(options: { chainId?: number; automine?: boolean; blockTime?: number } = {}): Promise<Anvil> {
  const port = await freePort();
  const chainId = options.chainId ?? 31337;
  const args = ["--port", String(port), "--host", "127.0.0.1", "--chain-id", String(chainId), "--silent"];
  if (options.automine === false) args.push("--no-mining");
  if (options.blockTime) args.push("--block-time", String(options.blockTime));
  const child: ChildProcess = spawn(anvilBinary(), args, { stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  child.stderr?.on("data", (chunk) => (stderr += String(chunk)));
  const rpcUrl = `http://127.0.0.1:${port}`;
  const chain = { ...foundry, id: chainId };
  const transport = http(rpcUrl, { retryCount: 0 });
  const publicClient = createPublicClient({ chain, transport, cacheTime: 0 }) as PublicClient;
  const deadline = Date.now() + 15_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`anvil exited with ${child.exitCode}: ${stderr}`);
    try {
      await publicClient.getChainId();
      break;
    } catch {
      if (Date.now() > deadline) {
        child.kill("SIGKILL");
        throw new Error(`anvil did not answer on ${rpcUrl} within 15 s: ${stderr}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  const account = (index: number) => mnemonicToAccount(ANVIL_MNEMONIC, { addressIndex: index });
  const testClient = createTestClient({ chain, transport, mode: "anvil", cacheTime: 0 }) as TestClient;
  return {
    rpcUrl,
    chainId,
    public: publicClient,
    test: testClient,
    wallet: createWalletClient({ chain, transport, cacheTime: 0 }),
    account,
    privateKey: (index) => `0x${Buffer.from(account(index).getHdKey().privateKey!).toString("hex")}`,
    mine: (blocks = 1) => testClient.mine({ blocks }),
    pause: () => void child.kill("SIGSTOP"),
    resume: () => void child.kill("SIGCONT"),
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill("SIGCONT"); // A paused node would never see the SIGTERM.
        child.kill("SIGTERM");
      }),
  };
}
