import { PaymentError } from "../../../errors";
import { ChainMismatchError, type ChainAdapter, type ChainHost, type ChainSyncStatus } from "../../../core/ports/chain";
import { toChainUnits, toLedgerUnits } from "../units";
import { addressNetOfNode, isMoneroAddress } from "./address";
import { moneroDaemon } from "./daemon";
import { MoneroHotWallet } from "./hot-wallet";
import { isViewKeyOf } from "./keys";
import { checkMoneroOptions, type MoneroChainOptions } from "./options";
import { withBlockTimes } from "../block-times";
import { createMoneroRpc } from "./rpc";
import { cursorHeight, MoneroScanner, XMR_DECIMALS } from "./scanner";
import { Subaddresses } from "./subaddresses";
import { ViewWallet } from "./view-wallet";

export type { MoneroChainOptions } from "./options";

/** The Monero chain adapter: what `moneroChain()` returns. */
export interface MoneroChain extends ChainAdapter {
  readonly name: "monero";
  /** "monero:<network>": the feed (and stored cursor) of this coin. */
  readonly feedId: string;
  /**
   * Checks the node's network against the address's, the view key against the address, and the
   * view-only wallet in the wallet RPC (made or opened here); rejects with a `ChainMismatchError`
   * naming what differs. Always available on this adapter.
   */
  ready(): Promise<void>;
}

/**
 * A live chain adapter for Monero (XMR) through `monerod` and `monero-wallet-rpc`.
 *
 * - Deposits: a view-only wallet (address and private view key, no spend key) that the adapter
 *   makes in the wallet RPC at `walletRpcUrl`, or opens when it exists; one subaddress per
 *   invoice, never handed out twice (see Subaddresses); incoming transfers read once per poll
 *   from the wallet (see MoneroScanner).
 * - Payouts, with `hotWallet`: a full wallet in a second wallet RPC makes each payout, the
 *   adapter stores it under the payout id, then relays it (see MoneroHotWallet).
 * - `ready()` refuses a node of another network than the address's, a view key that is not the
 *   address's, and a wallet file of another address.
 *
 * Options are checked here; a malformed address, key or URL throws now, naming the option and
 * never showing the key, a password or the URL.
 */
export function moneroChain(options: MoneroChainOptions): MoneroChain {
  const settings = checkMoneroOptions(options);
  const secrets = [settings.viewKey, settings.walletPassword, settings.hotWallet?.password ?? ""].filter((secret) => secret.length >= 4);
  const daemon = moneroDaemon(createMoneroRpc({ url: settings.daemonUrl, label: `${settings.network} daemon`, timeoutMs: settings.timeoutMs, secrets }));
  const namespace = `monero:${settings.network}`;
  const wallet = new ViewWallet({
    rpc: createMoneroRpc({ url: settings.walletRpcUrl, label: `${settings.network} view wallet RPC`, timeoutMs: settings.timeoutMs, secrets }),
    address: settings.address,
    viewKey: settings.viewKey,
    walletName: settings.walletName,
    walletPassword: settings.walletPassword,
    restoreHeight: async () => settings.restoreHeight ?? Math.max(0, (await daemon.blockCount()) - 1),
  });
  const hotRpc = settings.hotWallet
    ? createMoneroRpc({ url: settings.hotWallet.walletRpcUrl, label: `${settings.network} hot wallet RPC`, timeoutMs: settings.timeoutMs, secrets })
    : null;

  // The node's network, checked once per process against the address's (and the view key
  // against the address): a stagenet address on a mainnet node would issue subaddresses no
  // payer on that node can pay.
  const checkNode = async (): Promise<string> => {
    const nettype = await daemon.nettype();
    const net = addressNetOfNode(nettype);
    if (net === null) throw new ChainMismatchError(`the ${settings.network} node is on "${nettype}", a network this adapter does not know`);
    if (net !== settings.decoded.nettype)
      throw new ChainMismatchError(
        `the ${settings.network} node is on ${nettype === "fakechain" ? "regtest (mainnet addresses)" : nettype}, but address is a ${settings.decoded.nettype} address; give the address of the node's network`,
      );
    if (!isViewKeyOf(settings.viewKey, settings.decoded.publicViewKey))
      throw new ChainMismatchError(`viewKey is not the private view key of the ${settings.network} address configured: it would see none of its payments`);
    await wallet.open();
    if (hot) {
      // A hot wallet that cannot be used now (down, or a wrong password) fails its payouts, which
      // say why; it does not keep the deposits from being watched.
      const hotAddress = await hot.address().catch((error: unknown) => {
        use().host.logger.warn(`${settings.network}: the hot wallet cannot be used now: ${(error as Error).message}`);
        return null;
      });
      if (hotAddress !== null && !isMoneroAddress(hotAddress, settings.decoded.nettype))
        throw new ChainMismatchError(
          `the hot wallet "${settings.hotWallet!.walletName}" is not a ${settings.decoded.nettype} wallet, as the node's network asks`,
        );
    }
    return nettype;
  };
  let checked: Promise<string> | null = null;
  const checkedNode = (): Promise<string> =>
    (checked ??= checkNode().catch((error: unknown) => {
      // A node that could not answer is asked again next time; a mismatch stays refused.
      if (!(error instanceof ChainMismatchError)) checked = null;
      throw error;
    }));

  let scannedHeight: number | null = null;
  let hot: MoneroHotWallet | null = null;
  let bound: { host: ChainHost; scanner: MoneroScanner; subaddresses: Subaddresses; confirmations: number } | null = null;
  const use = () => {
    if (!bound) throw new Error("moneroChain is not bound: pass it to createPaymentRouter({ chains: [...] })");
    return bound;
  };
  const useHot = () => {
    if (!hot) throw new Error("payouts of XMR need the hot wallet: configure moneroChain({ hotWallet })");
    return hot;
  };
  const ledger = (piconero: bigint) => toLedgerUnits(piconero, XMR_DECIMALS, use().host.decimals(settings.coin));

  return {
    name: "monero",
    feedId: namespace,

    bind(host) {
      const confirmations = settings.confirmations ?? host.minConfirm(settings.coin, settings.network);
      const scanner = new MoneroScanner({ wallet, coin: settings.coin, network: settings.network, nettype: checkedNode, host, confirmations });
      if (hotRpc && settings.hotWallet)
        hot = new MoneroHotWallet({
          rpc: hotRpc,
          daemon,
          host,
          namespace,
          walletName: settings.hotWallet.walletName,
          password: settings.hotWallet.password,
          confirmations,
        });
      bound = { host, scanner, subaddresses: new Subaddresses(wallet, host, namespace), confirmations };
    },

    supports(coin, network) {
      return coin === settings.coin && network === settings.network;
    },

    async createAddress({ invoiceId }) {
      const { subaddresses } = use();
      try {
        await checkedNode();
        return await subaddresses.issue(invoiceId);
      } catch (error) {
        if (error instanceof PaymentError) throw error;
        // The RPC clients' errors are scrubbed of URLs, the view key and passwords.
        throw new PaymentError("chain_unavailable", `No ${settings.coin} address can be issued right now: ${(error as Error).message}`, { cause: error });
      }
    },

    requiredConfirmations() {
      return use().confirmations;
    },

    async ready() {
      await checkedNode();
    },

    async isValidAddress(coin, network, address) {
      if (coin !== settings.coin || network !== settings.network) return false;
      // The configured address's network is the node's (ready() refuses any other): addresses are
      // checked against it offline, standard, integrated and subaddresses alike.
      return isMoneroAddress(address, settings.decoded.nettype);
    },

    async pollDeposits(cursor) {
      const page = await use().scanner.poll(cursor);
      scannedHeight = cursorHeight(page.cursor);
      return page;
    },

    cursorHeight(cursor) {
      return cursorHeight(cursor);
    },

    async syncStatus(options): Promise<ChainSyncStatus> {
      const status = {
        network: settings.network,
        nodeHeight: (await daemon.blockCount()) - 1,
        scannedHeight: options?.scannedHeight ?? scannedHeight,
        blockSeconds: settings.blockSeconds,
      };
      return withBlockTimes(status, (height) => daemon.blockTime(height));
    },

    payoutsUnavailable() {
      return hotRpc ? null : `Payouts of ${settings.coin} need the hot wallet: configure moneroChain({ hotWallet }) with a wallet RPC holding a full wallet.`;
    },

    async hotWalletBalances() {
      if (!hot) return [];
      const wallet = useHot();
      return [{ coin: settings.coin, network: settings.network, address: await wallet.address(), amount: ledger(await wallet.balance()), lowBalance: null }];
    },

    async payoutNeeds({ amount }) {
      return [{ coin: settings.coin, amount: amount + ledger(await useHot().typicalFee()) }];
    },

    async sendPayout({ payoutId, address, amount, coin }) {
      const piconero = toChainUnits(amount, XMR_DECIMALS, use().host.decimals(coin));
      return { txHash: await useHot().send(payoutId, address, piconero) };
    },

    async getPayoutStatus({ payoutId }) {
      return useHot().status(payoutId);
    },
  };
}
