import { createPublicClient, encodeFunctionData, erc20Abi, getAddress, http, isAddress, parseUnits, type Address, type PublicClient } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { isValidAddressOfFamily } from "../address-rules";
import { withBlockTimes } from "../block-times";
import { ChainMismatchError, type ChainAdapter, type ChainHost, type ChainPayoutStatus, type ChainSyncStatus } from "../../../core/ports/chain";
import { Consolidator } from "./consolidation";
import { DETERMINISTIC_DEPLOYER, factoryAddress, factoryDeploymentData, forwarderAddress, forwarderSalt } from "./forwarders";
import { HotWallet } from "./hot-wallet";
import { checkEvmOptions, type EvmChainOptions, type EvmSettings } from "./options";
import { nodeError, rpcSecrets } from "../../rpc-errors";
import { decodeCursor } from "./cursor";
import { EvmScanner, type WatchedAsset } from "./scanner";
import { toChainUnits } from "../units";
import { payoutNeeds, readHotWalletBalances, type HotWalletBalancesSettings } from "./balances";
import { rescaleDown } from "../../../money";
import { readHoldings, type HoldingsSettings } from "./holdings";
import { OutageLog } from "../../../outage-log";
import { readRescan, requestRescan } from "../rescan-request";

export type { EvmChainOptions } from "./options";

/** The EVM chain adapter: what `evmChain()` returns. */
export interface EvmChain extends ChainAdapter {
  readonly name: "evm";
  /** "evm:<network>": the feed (and stored cursor) of this network. */
  readonly feedId: string;
  /** The hot wallet's address: fund it with the native coin for gas. */
  readonly hotWalletAddress: Address;
  /** The forwarder factory every deposit address derives from. */
  readonly factoryAddress: Address;
  /**
   * Recovery: makes the next deposit sync read the chain again from block `fromHeight` (deposits
   * missed while the service was down, or after restoring a backup). What is found again is
   * applied idempotently: nothing is credited twice. A height above the scanner's has no effect.
   */
  rescan(fromHeight: number): Promise<void>;
}

/** Everything that exists once the router has bound the adapter. */
interface Bound {
  host: ChainHost;
  /** The hot wallet, made once the node has told its chain id (it signs for that chain). */
  wallet: () => Promise<HotWallet>;
  scanner: EvmScanner;
  consolidator: Consolidator | null;
  balances: HotWalletBalancesSettings;
  holdings: HoldingsSettings;
}

/**
 * A live chain adapter for one EVM network (Ethereum, BNB Smart Chain, or another network of
 * the currency list) over JSON-RPC, on viem: its native coin and the ERC-20 tokens given.
 *
 * - Deposit addresses are CREATE2 forwarders of a factory the hot wallet owns: computed, never
 *   deployed before a payer pays, no private key per address.
 * - Deposits are found by following blocks from a cursor the service stores (one eth_getLogs per
 *   poll for the tokens, the blocks' own transactions, and traces for internal calls), with
 *   reorgs detected from stored block hashes.
 * - Payouts are signed, stored under the payout id, then broadcast, through one nonce queue per
 *   hot wallet shared by every instance on the same storage.
 * - Paid deposit addresses are swept into the hot wallet by the background loop.
 *
 * Options are checked here: a malformed key, URL or token address throws now, naming the
 * option, and never showing the key or the URL.
 */
export function evmChain(options: EvmChainOptions): EvmChain {
  const settings = checkEvmOptions(options);
  const account = privateKeyToAccount(settings.hotWallet);
  const secrets = [...rpcSecrets(settings.rpcUrl), settings.hotWallet, settings.hotWallet.slice(2)];
  const label = `${settings.network} node`;
  // nodeError passes a NodeError (one already scrubbed, here or by the hot wallet) through
  // unchanged, so an error wrapped at several depths still carries its label once.
  const fail = (error: unknown): Error => nodeError(error, { label, secrets });
  const client = createPublicClient({
    transport: http(settings.rpcUrl, { batch: { batchSize: 100 }, timeout: settings.timeoutMs, retryCount: 1 }),
    cacheTime: 0,
  }) as PublicClient;
  const factory = settings.factory ?? factoryAddress(account.address);
  // Re-pointed at the host's currency list contracts on bind when the tokens are the list's.
  let configured = watchedAssets(settings);
  const assetOf = (coin: string) => configured.find((asset) => asset.coin === coin);

  let chainId: Promise<number> | null = null;
  // The chain id as configured, or as the node reported it once checked: what wallet links name.
  let knownChainId: number | null = settings.chainId;
  // The chain the node must be on: the option, or the currency list's (set on bind) where that is the default.
  let expected: { id: number; source: string } | null = settings.chainId === null ? null : { id: settings.chainId, source: "was configured" };
  const nodeChainId = () =>
    (chainId ??= client.getChainId().then(
      (id) => {
        if (expected !== null && id !== expected.id) {
          // A NodeError (no secret in it): the callers' fail() passes it on without labelling it twice.
          throw new ChainMismatchError(`${label} is on chain ${id}, but chainId ${expected.id} ${expected.source}`);
        }
        knownChainId = id;
        return id;
      },
      (error: unknown) => {
        chainId = null; // A node that was down is asked again next time.
        throw fail(error);
      },
    ));

  let bound: Bound | null = null;
  // Where rescan() leaves the height the next poll reads from.
  const rescanKey = `evm:${settings.network}:rescan`;
  // The last block the scanner read, from the cursor its last poll returned (null before one).
  let scannedHeight: number | null = null;
  const use = (): Bound => {
    if (!bound) throw new Error(`evmChain(${settings.network}) is not bound: pass it to createPaymentRouter({ chains: [...] })`);
    return bound;
  };
  const confirmationsOf = (host: ChainHost, coin: string) => settings.confirmations ?? host.minConfirm(coin, settings.network);

  // The factory is deployed (once, by the hot wallet through the deterministic deployer) the
  // first time a sweep needs it; deposit addresses never wait for it.
  // Asked each round a sweep is due: a factory that is missing is logged as an outage (once,
  // then a line a round, then a line when it is there), not as an error every round.
  let factoryLog: OutageLog | null = null;
  const factoryPart = `${settings.network}: forwarder factory`;
  const ensureFactory = async (): Promise<Address | null> => {
    const { host } = use();
    factoryLog ??= new OutageLog(host.logger);
    const wallet = await use().wallet();
    const code = await client.getCode({ address: factory });
    if (code && code !== "0x") {
      factoryLog.worked(factoryPart);
      return factory;
    }
    if (settings.factory) {
      factoryLog.failed(factoryPart, `no contract at the configured factory ${factory}; deposits are credited but not consolidated`);
      return null;
    }
    await wallet.send("factory", { to: DETERMINISTIC_DEPLOYER, data: factoryDeploymentData(account.address), gasFallback: 1_500_000n });
    const status = await wallet.status("factory", 1);
    if (status.status === "failed") factoryLog.failed(factoryPart, `deploying it failed: ${status.reason}`);
    if (status.status === "confirmed") factoryLog.worked(factoryPart);
    return status.status === "confirmed" ? factory : null;
  };

  return {
    name: "evm",
    feedId: `evm:${settings.network}`,
    hotWalletAddress: account.address,
    factoryAddress: factory,

    bind(host) {
      if (settings.tokensFromList) configured = listContracts(configured, host, settings.network);
      if (settings.chainIdFromList) {
        const listed = configured.map((asset) => host.networkOf?.(asset.coin, settings.network)?.chainId).find((id) => id !== undefined);
        if (listed !== undefined) {
          expected = { id: listed, source: `is the currency list's for ${settings.network}` };
          knownChainId = listed;
        }
      }
      // Coins the host's currency list lacks (BNB on BSC in the default list) are not watched.
      const assets = configured.filter((asset) => host.listed(asset.coin, settings.network));
      for (const asset of assets) {
        const ledger = host.decimals(asset.coin);
        if (asset.chainDecimals < ledger) {
          throw new TypeError(
            `evmChain: ${asset.coin} has ${asset.chainDecimals} decimals on ${settings.network} but ${ledger} in the currency list; payouts could not be exact`,
          );
        }
      }
      const namespace = `evm:${settings.network}:${account.address}`;
      let made: Promise<HotWallet> | null = null;
      const wallet = () =>
        (made ??= nodeChainId().then(
          (chainId) => new HotWallet({ client, account, chainId, state: host.state, namespace, logger: host.logger, label, secrets }),
          (error: unknown) => {
            made = null;
            throw error;
          },
        ));
      // Kept with consolidation off too: its list of paid deposit addresses is what reconciliation reads there.
      const consolidator = new Consolidator({
        client,
        wallet,
        host,
        namespace,
        tokenOf: (coin) => assetOf(coin)?.token ?? null,
        minimum: (coin) =>
          settings.consolidation === false ? 0n : parseUnits(settings.consolidation.minimum[coin] ?? "0", assetOf(coin)?.chainDecimals ?? 18),
        ensureFactory,
      });
      const scanner = new EvmScanner({
        client,
        chainId: nodeChainId,
        network: settings.network,
        assets,
        host,
        confirmations: (coin) => confirmationsOf(host, coin),
        blocksPerPoll: settings.blocksPerPoll,
        startBlock: settings.startBlock,
        internalTransfers: settings.internalTransfers,
        onFinal: async (deposits) => consolidator?.add(deposits),
      });
      // The native coin is read for gas even where the currency list does not list it.
      const decimals = (coin: string) => (host.listed(coin, settings.network) ? host.decimals(coin) : 18);
      // Options in chain units, to ledger units: exact, or refused naming the option.
      const toLedger = (option: string, amounts: ReadonlyMap<string, bigint>): Map<string, bigint> => {
        const ledger = new Map<string, bigint>();
        for (const [coin, amount] of amounts) {
          const chainDecimals = assetOf(coin)?.chainDecimals ?? 18;
          const units = rescaleDown(amount, chainDecimals, decimals(coin));
          if (toChainUnits(units, chainDecimals, decimals(coin)) !== amount) {
            throw new TypeError(`evmChain: ${option}.${coin} has more decimal places than the currency list's ${decimals(coin)} for ${coin}`);
          }
          ledger.set(coin, units);
        }
        return ledger;
      };
      const lowBalance = toLedger("lowBalance", settings.lowBalance);
      const float = toLedger("float", settings.float);
      const balances: HotWalletBalancesSettings = {
        client,
        network: settings.network,
        address: account.address,
        nativeCoin: settings.nativeCoin,
        assets,
        decimals,
        lowBalance,
      };
      const holdings: HoldingsSettings = {
        ...balances,
        float,
        wallet,
        depositAddresses: () => consolidator.held(),
        state: host.state,
        namespace,
        confirmations:
          settings.confirmations ??
          (settings.nativeCoin !== null && host.listed(settings.nativeCoin, settings.network) ? host.minConfirm(settings.nativeCoin, settings.network) : 12),
        logger: host.logger,
      };
      bound = { host, wallet, scanner, consolidator, balances, holdings };
    },

    supports(coin, network) {
      return network === settings.network && assetOf(coin) !== undefined;
    },

    requiredConfirmations(coin) {
      return confirmationsOf(use().host, coin);
    },

    walletLink(coin, network) {
      const asset = assetOf(coin);
      // No link before the chain id is known for sure: a wallet must never be sent to another chain.
      if (network !== settings.network || asset === undefined || knownChainId === null) return null;
      return asset.token === null ? { chainId: knownChainId, native: true } : { chainId: knownChainId, tokenContract: asset.token };
    },

    async ready() {
      // The node is asked for its chain id (each call until it answers once); a chain id other
      // than the configured one is a ChainMismatchError, kept for good.
      await nodeChainId();
    },

    async createAddress({ invoiceId }) {
      return forwarderAddress(factory, forwarderSalt(invoiceId));
    },

    async isValidAddress(_coin, network, address) {
      // The zero address is refused: coins sent there are burnt.
      return network === settings.network && isValidAddressOfFamily("evm", address);
    },

    tokenContracts(network) {
      // Every token contract it serves, listed or not: a token sent to one is lost for good.
      return network === settings.network ? configured.flatMap((asset) => (asset.token === null ? [] : [{ coin: asset.coin, contract: asset.token }])) : [];
    },

    async pollDeposits(cursor) {
      const { scanner, host } = use();
      try {
        // A rescan asked for by rescan() and not yet in the cursor: the cursor this page returns
        // names it, so it is done once the service stores that cursor (one asked for meanwhile is not).
        const page = await scanner.poll(cursor, await readRescan(host.state, rescanKey));
        scannedHeight = scannedOf(page.cursor);
        return page;
      } catch (error) {
        throw fail(error);
      }
    },

    async rescan(fromHeight) {
      await requestRescan(use().host.state, rescanKey, fromHeight);
    },

    cursorHeight: scannedOf,

    async syncStatus(options): Promise<ChainSyncStatus> {
      let status: ChainSyncStatus;
      try {
        const nodeHeight = Number(await client.getBlockNumber());
        const scanned = options?.scannedHeight ?? scannedHeight;
        const base = { network: settings.network, nodeHeight, scannedHeight: scanned, blockSeconds: settings.blockSeconds };
        // The timestamps of the head and of the first block not scanned measure the lag.
        status = await withBlockTimes(base, async (height) => Number((await client.getBlock({ blockNumber: BigInt(height) })).timestamp));
      } catch (error) {
        throw fail(error);
      }
      // Sweeps wait in the adapter's state: one storage read, no node call.
      if (bound?.consolidator && settings.consolidation !== false) status.pendingSweeps = (await bound.consolidator.held()).length;
      return status;
    },

    async sendPayout({ payoutId, coin, address, amount }) {
      const { host } = use();
      const wallet = await use().wallet();
      const asset = assetOf(coin);
      if (!asset) throw new Error(`evmChain(${settings.network}) does not serve ${coin}`);
      const value = toChainUnits(amount, asset.chainDecimals, host.decimals(coin));
      const to = address as Address;
      const request = asset.token
        ? { to: asset.token, data: encodeFunctionData({ abi: erc20Abi, functionName: "transfer", args: [to, value] }), gasFallback: 120_000n }
        : { to, value, gasFallback: 100_000n };
      // Signed and stored under the payout id before it is broadcast: a retry sends the same
      // transaction again, never a second one.
      return { txHash: await wallet.send(`payout:${payoutId}`, request) };
    },

    async getPayoutStatus({ payoutId, coin }): Promise<ChainPayoutStatus> {
      const { host } = use();
      const wallet = await use().wallet();
      const status = await wallet.status(`payout:${payoutId}`, confirmationsOf(host, coin));
      if (status.status === "failed") return { status: "failed", reason: status.reason };
      return { status: status.status };
    },

    async hotWalletBalances() {
      try {
        return await readHotWalletBalances(use().balances);
      } catch (error) {
        throw fail(error);
      }
    },

    async holdings() {
      try {
        return await readHoldings(use().holdings);
      } catch (error) {
        throw fail(error);
      }
    },

    async payoutNeeds({ coin, amount }) {
      try {
        return await payoutNeeds(use().balances, { coin, amount });
      } catch (error) {
        throw fail(error);
      }
    },

    async maintain() {
      const { consolidator } = use();
      if (!consolidator || settings.consolidation === false) return 0;
      try {
        return await consolidator.run();
      } catch (error) {
        throw fail(error);
      }
    },
  };
}

/** The height a cursor has read up to, or null before its first block. */
function scannedOf(cursorText: string): number | null {
  const height = decodeCursor(cursorText).height;
  return height >= 0 ? height : null;
}

/** The coins this adapter watches: the native coin (unless none) and each token. */
function watchedAssets(settings: EvmSettings): WatchedAsset[] {
  const assets: WatchedAsset[] = settings.tokens.map((token) => ({ coin: token.coin, token: token.address, chainDecimals: token.decimals }));
  if (settings.nativeCoin !== null) assets.unshift({ coin: settings.nativeCoin, token: null, chainDecimals: 18 });
  return assets;
}

/**
 * The list's tokens pointed at the contracts the host's currency list gives for them on
 * `network` (a host may list its own, a test its test token); a token the host's list gives no
 * valid contract for keeps the default list's.
 */
function listContracts(assets: WatchedAsset[], host: ChainHost, network: string): WatchedAsset[] {
  return assets.map((asset) => {
    if (asset.token === null) return asset;
    const contract = host.networkOf?.(asset.coin, network)?.tokenContract;
    return contract !== undefined && isAddress(contract, { strict: false }) ? { ...asset, token: getAddress(contract) } : asset;
  });
}
