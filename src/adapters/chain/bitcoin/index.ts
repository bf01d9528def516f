import type { HDKey } from "@scure/bip32";
import { PaymentError } from "../../../errors";
import { isValidAddressOfFamily, type ChainKind } from "../address-rules";
import { withBlockTimes } from "../block-times";
import { ChainMismatchError, type ChainAdapter, type ChainHoldings, type ChainHost, type ChainSyncStatus } from "../../../core/ports/chain";
import { toChainUnits, toLedgerUnits } from "../units";
import { addressOfScript, deriveAddress, parseAccountKey, sameAccount } from "./keys";
import { checkBitcoinOptions, type BitcoinChainOptions } from "./options";
import { addressParams } from "./params";
import { bitcoinNode } from "./node";
import { BitcoinScanner } from "./scanner";
import { BitcoinWallet } from "./wallet";
import { DepositAddresses } from "./deposit-addresses";
import { readHoldings } from "./holdings";
import { readRescan, requestRescan } from "../rescan-request";

export type { BitcoinChainOptions } from "./options";

/** The Bitcoin-family chain adapter: what `bitcoinChain()` returns. */
export interface BitcoinChain extends ChainAdapter {
  readonly name: "bitcoin";
  /** "bitcoin:<network>": the feed (and stored cursor) of this coin. */
  readonly feedId: string;
  /**
   * Recovery: makes the next deposit sync read the chain again from `fromHeight` (deposits missed
   * while the service was down, or after restoring a backup). What is found again is applied
   * idempotently: nothing is credited twice.
   */
  rescan(fromHeight: number): Promise<void>;
  /** What the chain holds for the service (see `ChainAdapter.holdings`): always available on this adapter. */
  holdings(): Promise<ChainHoldings>;
}

/**
 * A live chain adapter for one Bitcoin-family coin (BTC or LTC) through a Bitcoin Core
 * compatible node's JSON-RPC, with no wallet on the node.
 *
 * - Deposit addresses are the account's BIP84 receive addresses 0/i (the index lives in the
 *   service's storage, shared by every instance), at most `gapLimit` of them unused at once: past
 *   that, an unpaid address of an expired payment is handed out again (see DepositAddresses);
 *   the node is asked which chain it is on and addresses are encoded for it (bc1/tb1/bcrt1,
 *   ltc1/tltc1/rltc1).
 * - Deposits are found in blocks and in the mempool by script (see BitcoinScanner).
 * - With `hotWallet`, payouts spend the account's confirmed outputs, with change to 1/i, signed
 *   in process, stored under the payout id, then broadcast.
 *
 * Options are checked here; a malformed key or URL throws now, naming the option and never
 * showing the key, the RPC password or the URL.
 */
export function bitcoinChain(options: BitcoinChainOptions): BitcoinChain {
  const settings = checkBitcoinOptions(options);
  const account = parseAccountKey(settings.xpub, settings.family, "bitcoinChain: xpub");
  if (account.isPrivate)
    throw new TypeError("bitcoinChain: xpub is a private key; pass the account's extended public key there, and the private one as hotWallet");
  let signer: HDKey | null = null;
  if (settings.hotWallet) {
    const hot = parseAccountKey(settings.hotWallet, settings.family, "bitcoinChain: hotWallet");
    if (!hot.isPrivate) throw new TypeError("bitcoinChain: hotWallet must be the account's extended private key (xprv/zprv/tprv/vprv/Ltpv/Mtpv)");
    if (!sameAccount(account.key, hot.key))
      throw new TypeError("bitcoinChain: hotWallet is not the private key of the account given as xpub; payouts would spend nothing the deposits received");
    signer = hot.key;
  }
  const node = bitcoinNode({ url: settings.rpcUrl, timeoutMs: settings.timeoutMs, label: `${settings.network} node` });
  const namespace = `bitcoin:${settings.network}`;

  // The node says which chain it is on; it is remembered in storage so that addresses can be
  // issued (offline, from the xpub) even while the node is down after the first contact.
  // A node that answered is checked once per process: its chain against the key's networks and
  // against the chain this service issued addresses on before.
  const checkNode = async (): Promise<ChainKind> => {
    const { host } = use();
    const kind = await node.chain();
    // A testnet key on a mainnet node (or the reverse) would hand out addresses no wallet of
    // the merchant's shows: refuse rather than derive them.
    if (!account.chains.includes(kind)) {
      throw new ChainMismatchError(
        `the ${settings.network} node is on ${kind}, but the xpub given is a ${account.kind} key for ${account.chains.join("/")}; export the account key of the node's network`,
      );
    }
    const remembered = await host.state.get(`${namespace}:chain`);
    if (remembered && remembered !== kind)
      throw new ChainMismatchError(
        `the ${settings.network} node is on ${kind}, but this service issued addresses on ${remembered}; point rpcUrl at the right node`,
      );
    if (!remembered) await host.state.withLock(`${namespace}:chain`, (state) => state.set(`${namespace}:chain`, kind));
    return kind;
  };
  let checked: Promise<ChainKind> | null = null;
  const checkedNode = (): Promise<ChainKind> =>
    (checked ??= checkNode().catch((error: unknown) => {
      // A node that could not answer is asked again next time; a mismatch stays refused.
      if (!(error instanceof ChainMismatchError)) checked = null;
      throw error;
    }));
  const chainKind = async (): Promise<ChainKind> => {
    try {
      return await checkedNode();
    } catch (error) {
      // Only a node that cannot answer falls back to what was remembered, never a mismatch.
      if (error instanceof ChainMismatchError) throw error;
      const remembered = await use().host.state.get(`${namespace}:chain`);
      if (remembered) return remembered as ChainKind;
      throw error;
    }
  };
  const params = async () => addressParams(settings.family, await chainKind());

  // The last block the scanner read, from the cursor its last poll returned (null before one).
  let scannedHeight: number | null = null;
  let bound: {
    host: ChainHost;
    scanner: BitcoinScanner;
    wallet: BitcoinWallet;
    deposits: DepositAddresses;
    confirmations: number;
    lowBalance: bigint | null;
    float: bigint;
  } | null = null;
  const use = () => {
    if (!bound) throw new Error(`bitcoinChain(${settings.coin}) is not bound: pass it to createPaymentRouter({ chains: [...] })`);
    return bound;
  };

  return {
    name: "bitcoin",
    feedId: namespace,

    bind(host) {
      const confirmations = settings.confirmations ?? host.minConfirm(settings.coin, settings.network);
      const wallet = new BitcoinWallet({ node, host, namespace, account: signer, accountKey: account.key, params, confirmations, fee: settings.fee });
      const scanner = new BitcoinScanner({
        node,
        coin: settings.coin,
        network: settings.network,
        chain: chainKind,
        host,
        addressDecoder: async () => {
          const encoding = await params();
          return (hex) => addressOfScript(hex, encoding);
        },
        confirmations,
        blocksPerPoll: settings.blocksPerPoll,
        startHeight: settings.startHeight,
        // A followed deposit already has the fields receive() reads (txid, vout, sats, address).
        onFinal: (deposits) => wallet.receive(deposits),
        onBlocks: (blocks) => wallet.sawBlocks(blocks),
        // A top-up of the hot wallet is followed to finality like a deposit, and then spendable.
        ...(signer ? { walletAddresses: async () => [await wallet.address()] } : {}),
      });
      const deposits = new DepositAddresses({
        host,
        namespace,
        account: { id: wallet.owner.id, firstReceive: async () => deriveAddress(account.key, 0, 0, await params()) },
        coin: settings.coin,
        network: settings.network,
        gapLimit: settings.gapLimit,
        derive: async (index) => deriveAddress(account.key, 0, index, await params()),
      });
      const ledger = host.decimals(settings.coin);
      // Options in sats, in the ledger's units: refused when the currency list's decimals cannot carry them exactly.
      const inLedger = (option: string, sats: bigint | null): bigint | null => {
        if (sats === null) return null;
        const amount = toLedgerUnits(sats, 8, ledger);
        if (toChainUnits(amount, 8, ledger) !== sats)
          throw new TypeError(`bitcoinChain: ${option}.${settings.coin} has more decimal places than the currency list's ${ledger}`);
        return amount;
      };
      const lowBalance = inLedger("lowBalance", settings.lowBalance);
      const float = inLedger("float", settings.float) ?? 0n;
      bound = { host, scanner, wallet, deposits, confirmations, lowBalance, float };
    },

    supports(coin, network) {
      return coin === settings.coin && network === settings.network;
    },

    async createAddress({ merchantId, invoiceId }) {
      const { deposits } = use();
      try {
        await params();
      } catch (error) {
        // The node's words are scrubbed of its URL and credentials by the RPC client.
        throw new PaymentError("chain_unavailable", `No ${settings.coin} address can be issued right now: ${(error as Error).message}`, { cause: error });
      }
      return deposits.issue(merchantId, invoiceId);
    },

    requiredConfirmations() {
      return use().confirmations;
    },

    async ready() {
      await checkedNode();
    },

    async isValidAddress(coin, network, address) {
      if (coin !== settings.coin || network !== settings.network) return false;
      let chain: ChainKind;
      try {
        chain = await chainKind();
      } catch (error) {
        // Addresses are checked against the node's chain: without it (a node never reached), a
        // payout is refused before anything is debited, as an invoice is.
        throw new PaymentError("chain_unavailable", `${settings.coin} addresses cannot be checked right now: ${(error as Error).message}`, { cause: error });
      }
      return isValidAddressOfFamily(settings.family, address, { chain });
    },

    async pollDeposits(cursor) {
      const { scanner, host } = use();
      // A rescan asked for by rescan() and not yet in the cursor: the cursor this page returns
      // names it, so it is done once the service stores that cursor (one asked for meanwhile is not).
      const page = await scanner.poll(cursor, await readRescan(host.state, `${namespace}:rescan`));
      const height = (JSON.parse(page.cursor) as { height: number }).height;
      scannedHeight = height >= 0 ? height : null;
      return page;
    },

    cursorHeight(cursor) {
      const height = (JSON.parse(cursor) as { height: number }).height;
      return height >= 0 ? height : null;
    },

    async syncStatus(options): Promise<ChainSyncStatus> {
      // The RPC client's errors are scrubbed of the URL and its credentials.
      const scanned = options?.scannedHeight ?? scannedHeight;
      const status = { network: settings.network, nodeHeight: await node.blockCount(), scannedHeight: scanned, blockSeconds: settings.blockSeconds };
      return withBlockTimes(status, (height) => node.blockTime(height));
    },

    payoutsUnavailable() {
      return signer ? null : `Payouts of ${settings.coin} need the hot wallet: configure bitcoinChain({ hotWallet }) with the account's extended private key.`;
    },

    async hotWalletBalances() {
      const { wallet, host, lowBalance } = use();
      if (!signer) return [];
      // The account's first change address names the wallet (and takes top-ups): its coins are spread over many addresses.
      const address = await wallet.address();
      const sats = await wallet.balance();
      return [{ coin: settings.coin, network: settings.network, address, amount: toLedgerUnits(sats, 8, host.decimals(settings.coin)), lowBalance }];
    },

    async payoutNeeds({ amount }) {
      const { wallet, host } = use();
      return [{ coin: settings.coin, amount: amount + toLedgerUnits(wallet.typicalFee(), 8, host.decimals(settings.coin)) }];
    },

    async sendPayout({ payoutId, address, amount, coin }) {
      const { wallet, host } = use();
      return { txHash: await wallet.send(payoutId, address, toChainUnits(amount, 8, host.decimals(coin))) };
    },

    async getPayoutStatus({ payoutId }) {
      return use().wallet.status(payoutId);
    },

    /**
     * The account's outputs as the node sees them (see readHoldings): the current account's in
     * `hotWallet` when it has one (its deposits are the wallet's own outputs), else in
     * `depositAddresses`, where a previous account's outputs always are (the service's, but this
     * hot wallet cannot sign for them); the fees of broadcast payouts, and the declared float.
     */
    async holdings(): Promise<ChainHoldings> {
      const { wallet, host, float } = use();
      const read = await readHoldings({ node, state: host.state, namespace, owner: wallet.owner });
      // In the ledger's units, as deposits are credited (the currency list's decimals: 8 for BTC and LTC).
      const ledger = (sats: bigint) => toLedgerUnits(sats, 8, host.decimals(settings.coin));
      const hot = signer ? read.current : 0n;
      const elsewhere = read.previous + (signer ? 0n : read.current);
      return {
        network: settings.network,
        height: read.height,
        coins: [{ coin: settings.coin, hotWallet: ledger(hot), depositAddresses: ledger(elsewhere), networkFees: ledger(read.networkFees), float }],
      };
    },

    async rescan(fromHeight) {
      await requestRescan(use().host.state, `${namespace}:rescan`, fromHeight);
    },
  };
}
