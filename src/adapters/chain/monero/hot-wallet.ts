import type { ChainHost, ChainPayoutStatus } from "../../../core/ports/chain";
import { OutageLog } from "../../../outage-log";
import { MoneroRpcError, WALLET_RPC_CODES, type MoneroRpc } from "./rpc";

/** A signed payout, as stored before it is relayed. */
interface StoredPayout {
  txHash: string;
  /** The wallet RPC's `tx_metadata`: what `relay_tx` sends (again). Holds no key. */
  metadata: string;
  /** Piconero. */
  fee: string;
}

/** The daemon calls payouts make. */
export interface PayoutDaemon {
  /** Blocks in the chain (the head's height + 1). */
  blockCount(): Promise<number>;
  /** Where a transaction is: in the pool, in a block, or unknown to the node. */
  transaction(txHash: string): Promise<{ inPool: boolean; height: number | null } | null>;
  /** The node's fee per byte of weight, rounded as its quantization mask says. */
  feeEstimate(): Promise<{ perByte: bigint; mask: bigint }>;
}

/** What the hot wallet needs. */
export interface HotWalletSettings {
  rpc: MoneroRpc;
  daemon: PayoutDaemon;
  host: ChainHost;
  namespace: string;
  walletName: string;
  password: string;
  confirmations: number;
}

/** How the log names the re-relays of one payout transaction. */
const relayName = (txHash: string) => `re-relay of payout transaction ${txHash}`;

/** Weight of a typical payout (2 inputs, 2 outputs, CLSAG and Bulletproofs+: about 2,200 on 0.18) with room to spare. */
const TYPICAL_WEIGHT = 3_000n;

/**
 * Payouts from a full wallet in its own `monero-wallet-rpc`. Each payout is made without being
 * sent (`transfer` with `do_not_relay` and `get_tx_metadata`), stored under its payout id, and
 * only then sent (`relay_tx`). A retry of the payout id relays the stored transaction again (the
 * node takes it back if it had lost it) and never makes a second one.
 *
 * The wallet RPC marks a transaction's inputs spent only when it relays it: two payouts made
 * before either is relayed could pick the same outputs. So making a payout first relays every
 * stored payout not relayed yet, all under one lock of the service's storage (held across
 * processes sharing it), and payouts of one process go one at a time.
 */
export class MoneroHotWallet {
  private queue: Promise<unknown> = Promise.resolve();
  private opened: Promise<void> | null = null;
  private readonly rebroadcasts: OutageLog;

  constructor(private readonly settings: HotWalletSettings) {
    this.rebroadcasts = new OutageLog(settings.host.logger, { try: "status check" });
  }

  private key(name: string): string {
    return `${this.settings.namespace}:${name}`;
  }

  /** Opens the hot wallet once per process (again when the wallet RPC was restarted). */
  private open(): Promise<void> {
    this.opened ??= this.settings.rpc.call("open_wallet", { filename: this.settings.walletName, password: this.settings.password }).then(
      () => undefined,
      (error: unknown) => {
        this.opened = null;
        if (error instanceof MoneroRpcError && error.code === WALLET_RPC_CODES.UNKNOWN_ERROR)
          throw new Error(`the hot wallet "${this.settings.walletName}" does not open in its wallet RPC: check hotWallet.walletName and hotWallet.password`);
        throw error;
      },
    );
    return this.opened;
  }

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

  /** The wallet's primary address (where the operator tops it up). */
  async address(): Promise<string> {
    return (await this.call<{ address: string }>("get_address", { account_index: 0, address_index: [0] })).address;
  }

  /** The wallet's unlocked balance in piconero, after following the chain. */
  async balance(): Promise<bigint> {
    await this.call("refresh", {});
    return BigInt((await this.call<{ unlocked_balance: string }>("get_balance", { account_index: 0 })).unlocked_balance);
  }

  /** The fee of a typical payout at the node's current estimate, in piconero. */
  async typicalFee(): Promise<bigint> {
    const { perByte, mask } = await this.settings.daemon.feeEstimate();
    const fee = perByte * TYPICAL_WEIGHT;
    return mask > 1n ? ((fee + mask - 1n) / mask) * mask : fee;
  }

  /** Makes (once per payout id), stores, then relays a payout; returns its transaction hash. */
  send(payoutId: string, address: string, piconero: bigint): Promise<string> {
    const run = this.queue.then(() => this.sendNow(payoutId, address, piconero));
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async sendNow(payoutId: string, address: string, piconero: bigint): Promise<string> {
    const stored = (await this.stored(payoutId)) ?? (await this.make(payoutId, address, piconero));
    await this.relay(payoutId, stored);
    return stored.txHash;
  }

  private async stored(payoutId: string): Promise<StoredPayout | null> {
    const text = await this.settings.host.state.get(this.key(`payout:${payoutId}`));
    return text ? (JSON.parse(text) as StoredPayout) : null;
  }

  /** Relays the stored payouts not relayed yet, then makes this one and stores it, under the wallet's lock. */
  private async make(payoutId: string, address: string, piconero: bigint): Promise<StoredPayout> {
    await this.open();
    return this.settings.host.state.withLock(this.key("wallet"), async (state) => {
      const again = await state.get(this.key(`payout:${payoutId}`));
      if (again) return JSON.parse(again) as StoredPayout; // Made by another caller meanwhile.
      // Another process's payout stored and not yet relayed: its inputs are not marked spent in
      // the wallet until it is relayed, so it is relayed first.
      const pending = JSON.parse((await state.get(this.key("unrelayed"))) ?? "[]") as string[];
      for (const id of pending) {
        const other = await state.get(this.key(`payout:${id}`));
        if (other) await this.relayOnce((JSON.parse(other) as StoredPayout).metadata);
      }
      await this.call("refresh", {});
      const made = await this.call<{ tx_hash: string; tx_metadata: string; fee: string }>("transfer", {
        destinations: [{ address, amount: piconero }],
        account_index: 0,
        do_not_relay: true,
        get_tx_metadata: true,
      });
      const payout: StoredPayout = { txHash: made.tx_hash, metadata: made.tx_metadata, fee: String(made.fee) };
      await state.set(this.key(`payout:${payoutId}`), JSON.stringify(payout));
      await state.set(this.key("unrelayed"), JSON.stringify([payoutId]));
      return payout;
    });
  }

  private async relayOnce(metadata: string): Promise<void> {
    await this.call("relay_tx", { hex: metadata });
  }

  /** Relays a stored payout, takes it off the unrelayed list and counts its fee (once). */
  private async relay(payoutId: string, stored: StoredPayout): Promise<void> {
    try {
      await this.relayOnce(stored.metadata);
    } catch (error) {
      // Mined or waiting already (relayed by an earlier call or another process): it is out.
      if (!(await this.settings.daemon.transaction(stored.txHash).catch(() => null))) throw error;
    }
    await this.settings.host.state.withLock(this.key("unrelayed"), async (state) => {
      const pending = JSON.parse((await state.get(this.key("unrelayed"))) ?? "[]") as string[];
      if (pending.includes(payoutId)) await state.set(this.key("unrelayed"), JSON.stringify(pending.filter((id) => id !== payoutId)));
      if (await state.get(this.key(`fee-counted:${payoutId}`))) return;
      const total = this.key("network-fees");
      await state.set(total, String(BigInt((await state.get(total)) ?? "0") + BigInt(stored.fee)));
      await state.set(this.key(`fee-counted:${payoutId}`), stored.txHash);
    });
  }

  /** Where a payout stands: confirmed after the confirmations, pending before (relayed again when the node lost it). */
  async status(payoutId: string): Promise<ChainPayoutStatus> {
    const stored = await this.stored(payoutId);
    if (!stored) throw new Error(`no payout transaction is stored under "${payoutId}"`);
    const found = await this.settings.daemon.transaction(stored.txHash);
    if (found?.height != null) {
      const confirmations = (await this.settings.daemon.blockCount()) - found.height;
      if (confirmations >= this.settings.confirmations) {
        this.rebroadcasts.forget(relayName(stored.txHash));
        return { status: "confirmed" };
      }
      return { status: "pending" };
    }
    if (!found) {
      // Neither mined nor waiting (a reorg and a flushed pool, a node restarted): send it again.
      const name = relayName(stored.txHash);
      await this.relayOnce(stored.metadata).then(
        () => this.rebroadcasts.worked(name),
        (error: unknown) => this.rebroadcasts.failed(name, error),
      );
    }
    return { status: "pending" };
  }

  /** Network fees paid by relayed payouts, in piconero. */
  async networkFees(): Promise<bigint> {
    return BigInt((await this.settings.host.state.get(this.key("network-fees"))) ?? "0");
  }
}
