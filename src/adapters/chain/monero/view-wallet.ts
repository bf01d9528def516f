import { ChainMismatchError } from "../../../core/ports/chain";
import { MoneroRpcError, WALLET_RPC_CODES, type MoneroRpc } from "./rpc";

/** One incoming transfer as `get_transfers` lists it (type "in" mined, "pool" waiting). */
export interface IncomingTransfer {
  txid: string;
  /** The subaddress it paid, and its index (major: account, minor: address in it). */
  address: string;
  major: number;
  minor: number;
  /** Piconero. */
  amount: bigint;
  /** Block height, or null while in the pool. */
  height: number | null;
  /** Non-zero: the payer locked the outputs until that height or time. */
  unlockTime: bigint;
}

interface RawTransfer {
  txid: string;
  address: string;
  amount: string;
  height: string;
  unlock_time: string;
  type: string;
  subaddr_index: { major: string; minor: string };
}

/** What the view-only wallet needs. */
export interface ViewWalletSettings {
  rpc: MoneroRpc;
  address: string;
  viewKey: string;
  walletName: string;
  walletPassword: string;
  /** Where a new wallet starts scanning: the option, else the node's height (asked when needed). */
  restoreHeight: () => Promise<number>;
}

/**
 * The service's view-only wallet in a `monero-wallet-rpc`: made once from the address and the
 * private view key (`generate_from_keys` with no spend key), opened by name after that. It
 * follows the chain for the adapter (`refresh`), lists incoming transfers to its subaddresses
 * (`get_transfers`), and makes one subaddress per invoice (`create_address`).
 */
export class ViewWallet {
  private opened: Promise<void> | null = null;

  constructor(private readonly settings: ViewWalletSettings) {}

  /** Opens (or makes) the wallet once per process, and checks that it is the configured address's. */
  open(): Promise<void> {
    this.opened ??= this.openOrCreate().catch((error: unknown) => {
      this.opened = null;
      throw error;
    });
    return this.opened;
  }

  private async openOrCreate(): Promise<void> {
    const { rpc, walletName, walletPassword } = this.settings;
    // A wallet of the configured address already open (this adapter's, from before a restart of
    // the service) is used as it is: opening a wallet file takes seconds.
    // Any answer but an address (-13: no wallet open) means opening it.
    const open = await rpc.call<{ address: string }>("get_address", { account_index: 0, address_index: [0] }).catch((error: unknown) => {
      if (error instanceof MoneroRpcError) return null;
      throw error;
    });
    if (open?.address === this.settings.address) return this.stopAutoRefresh();
    try {
      await rpc.call("open_wallet", { filename: walletName, password: walletPassword });
    } catch (error) {
      if (!(error instanceof MoneroRpcError) || error.code !== WALLET_RPC_CODES.UNKNOWN_ERROR) throw error;
      try {
        await rpc.call("generate_from_keys", {
          filename: walletName,
          address: this.settings.address,
          viewkey: this.settings.viewKey,
          password: walletPassword,
          restore_height: await this.settings.restoreHeight(),
          autosave_current: true,
        });
      } catch (creating) {
        if (creating instanceof MoneroRpcError && /already exists/i.test(creating.serverMessage))
          throw new ChainMismatchError(`the wallet RPC has a wallet named "${walletName}" that does not open with walletPassword`);
        throw creating;
      }
    }
    const { address } = await rpc.call<{ address: string }>("get_address", { account_index: 0, address_index: [0] });
    if (address !== this.settings.address)
      throw new ChainMismatchError(`the wallet "${walletName}" in the wallet RPC is of another address than the one configured; give another walletName`);
    await this.stopAutoRefresh();
  }

  /**
   * The adapter refreshes the wallet itself at each poll: the wallet RPC's own background refresh
   * (every 20 s by default) is turned off, so that no refresh of its own runs between the
   * adapter's `refresh` and the listing that follows it.
   */
  private async stopAutoRefresh(): Promise<void> {
    await this.settings.rpc.call("auto_refresh", { enable: false });
  }

  /** Calls the wallet, opening it again when the wallet RPC says none is open (it was restarted). */
  private async call<T>(method: string, params: Record<string, unknown>): Promise<T> {
    await this.open();
    try {
      return await this.settings.rpc.call<T>(method, params);
    } catch (error) {
      if (!(error instanceof MoneroRpcError) || error.code !== WALLET_RPC_CODES.NOT_OPEN) throw error;
      this.opened = null;
      await this.open();
      return this.settings.rpc.call<T>(method, params);
    }
  }

  /** Follows the chain to the node's head; returns the wallet's height (blocks it knows: the head's height + 1). */
  async refresh(): Promise<number> {
    await this.call("refresh", {});
    return Number((await this.call<{ height: string }>("get_height", {})).height);
  }

  /** Incoming transfers mined above `minHeight` (exclusive), and those in the pool. */
  async incoming(minHeight: number): Promise<IncomingTransfer[]> {
    const answer = await this.call<{ in?: RawTransfer[]; pool?: RawTransfer[] }>("get_transfers", {
      in: true,
      pool: true,
      filter_by_height: true,
      min_height: minHeight,
      account_index: 0,
    });
    return [...(answer.in ?? []), ...(answer.pool ?? [])].map((raw) => ({
      txid: raw.txid,
      address: raw.address,
      major: Number(raw.subaddr_index.major),
      minor: Number(raw.subaddr_index.minor),
      amount: BigInt(raw.amount),
      height: raw.type === "pool" ? null : Number(raw.height),
      unlockTime: BigInt(raw.unlock_time),
    }));
  }

  /**
   * New subaddresses of account 0, `count` of them (at most 64 a call); returns the last, with
   * its index. The wallet is saved after, so that its counter survives a restart of the wallet RPC.
   */
  async createAddress(count: number, label: string): Promise<{ address: string; index: number }> {
    const answer = await this.call<{ addresses: string[]; address_indices: string[] }>("create_address", { account_index: 0, count, label });
    await this.call("store", {});
    return { address: answer.addresses.at(-1)!, index: Number(answer.address_indices.at(-1)) };
  }
}
