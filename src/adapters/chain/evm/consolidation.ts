import type { Address, Hex, PublicClient } from "viem";
import type { ChainHost } from "../../../core/ports/chain";
import type { TrackedDeposit } from "./cursor";
import { balancesOfCallData, decodeBalancesOf, forwarderSalt, sweepCallData } from "./forwarders";
import type { HotWallet } from "./hot-wallet";

/** A deposit address holding a final deposit, waiting to be swept. */
interface Holding {
  coin: string;
  address: string;
  invoiceId: string;
}

/** The sweep transaction in flight, if any, with what it sends (so a crash before it was signed only delays it). */
interface Sweeping {
  id: string;
  coin: string;
  addresses: string[];
  data: Hex;
  gasFallback: string;
}

/** Most forwarders deployed by one sweep transaction (about 75-92k gas each). */
const SWEEP_BATCH = 50;

/**
 * Moves paid deposits from their CREATE2 addresses into the hot wallet: one transaction from
 * the hot wallet to the factory per batch, no gas top-up of the deposit addresses. The list of
 * addresses to sweep lives in the adapter's durable state (shared by instances); one sweep is in
 * flight at a time per network. The ledger never depends on it: a deposit is credited when it
 * is final, swept or not.
 */
export class Consolidator {
  constructor(
    private readonly options: {
      client: PublicClient;
      wallet: () => Promise<HotWallet>;
      host: ChainHost;
      namespace: string;
      /** Token contract of each coin; null for the native coin. */
      tokenOf: (coin: string) => Address | null;
      /** Smallest balance worth a sweep, in chain units, per coin. */
      minimum: (coin: string) => bigint;
      /** Deploys the factory when needed; true once it has code. */
      ensureFactory: () => Promise<Address | null>;
    },
  ) {}

  private get listKey() {
    return `${this.options.namespace}:sweep-list`;
  }

  private get sweepingKey() {
    return `${this.options.namespace}:sweeping`;
  }

  /** Adds the addresses of deposits that just became final. */
  async add(deposits: readonly TrackedDeposit[]): Promise<void> {
    await this.options.host.state.withLock(this.listKey, async (state) => {
      const list = parse<Holding[]>(await state.get(this.listKey), []);
      for (const deposit of deposits) {
        if (!list.some((entry) => entry.coin === deposit.coin && entry.address === deposit.address)) {
          list.push({ coin: deposit.coin, address: deposit.address, invoiceId: deposit.invoiceId });
        }
      }
      await state.set(this.listKey, JSON.stringify(list));
    });
  }

  /**
   * Every deposit address holding a final deposit not yet swept, with its coin: those waiting
   * for a sweep and those of the sweep in flight. Read without the list's lock.
   */
  async held(): Promise<Array<{ coin: string; address: string }>> {
    const { state } = this.options.host;
    const list = parse<Holding[]>(await state.get(this.listKey), []);
    const sweeping = parse<Sweeping | null>(await state.get(this.sweepingKey), null);
    const entries = [...list, ...(sweeping?.addresses.map((address) => ({ coin: sweeping.coin, address })) ?? [])];
    const seen = new Set<string>();
    return entries.filter((entry) => {
      const key = `${entry.coin}:${entry.address}`;
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
  }

  /**
   * One step: settles the sweep in flight, or starts the next one. Returns 1 when it sent or
   * settled a sweep, else 0.
   */
  async run(): Promise<number> {
    const { host } = this.options;
    const wallet = await this.options.wallet();
    const sweeping = parse<Sweeping | null>(await host.state.get(this.sweepingKey), null);
    if (sweeping) {
      const factory = await this.options.ensureFactory();
      if (!factory) return 0;
      // Idempotent by id: signs it if a crash came first, else re-sends the stored transaction.
      await wallet.send(sweeping.id, { to: factory, data: sweeping.data, gasFallback: BigInt(sweeping.gasFallback) });
      const status = await wallet.status(sweeping.id, 1);
      if (status.status === "pending") return 0;
      if (status.status === "failed") host.logger.warn(`consolidation ${sweeping.id} failed (${status.reason}); its addresses will be swept again`);
      await host.state.withLock(this.listKey, async (state) => {
        // A swept address leaves the list; one that failed stays for the next round.
        if (status.status === "confirmed") {
          const list = parse<Holding[]>(await state.get(this.listKey), []);
          const swept = new Set(sweeping.addresses);
          await state.set(this.listKey, JSON.stringify(list.filter((entry) => !(entry.coin === sweeping.coin && swept.has(entry.address)))));
        }
        await state.set(this.sweepingKey, "null");
      });
      return 1;
    }

    const list = parse<Holding[]>(await host.state.get(this.listKey), []);
    if (list.length === 0) return 0;
    const factory = await this.options.ensureFactory();
    if (!factory) return 0;
    const coin = list[0]!.coin;
    const batch = list.filter((entry) => entry.coin === coin).slice(0, SWEEP_BATCH);
    const token = this.options.tokenOf(coin);
    const balances = decodeBalancesOf(
      (
        await this.options.client.call({
          to: factory,
          data: balancesOfCallData(
            token,
            batch.map((entry) => entry.address as Address),
          ),
        })
      ).data ?? "0x",
    );
    const due = batch.filter((_, i) => (balances[i] ?? 0n) > 0n && balances[i]! >= this.options.minimum(coin));
    const idle = batch.filter((_, i) => (balances[i] ?? 0n) === 0n);
    return host.state
      .withLock(this.listKey, async (state) => {
        // Another instance may have started a sweep meanwhile: one at a time.
        if (parse<Sweeping | null>(await state.get(this.sweepingKey), null)) return 0;
        // Empty addresses (swept already, or drained by nothing we know) leave the list.
        const current = parse<Holding[]>(await state.get(this.listKey), []);
        await state.set(
          this.listKey,
          JSON.stringify(current.filter((entry) => !idle.some((gone) => gone.coin === entry.coin && gone.address === entry.address))),
        );
        if (due.length === 0) return idle.length > 0 ? 1 : 0;
        const sequence = Number((await state.get(`${this.options.namespace}:sweep-seq`)) ?? "0") + 1;
        await state.set(`${this.options.namespace}:sweep-seq`, String(sequence));
        const salts: Hex[] = due.map((entry) => forwarderSalt(entry.invoiceId));
        const next: Sweeping = {
          id: `sweep:${sequence}`,
          coin,
          addresses: due.map((entry) => entry.address),
          data: sweepCallData(token, salts),
          gasFallback: String(60_000n + 120_000n * BigInt(salts.length)),
        };
        await state.set(this.sweepingKey, JSON.stringify(next));
        return next;
      })
      .then(async (next) => {
        if (typeof next === "number") return next;
        await wallet.send(next.id, { to: factory, data: next.data, gasFallback: BigInt(next.gasFallback) });
        return 1;
      });
  }
}

function parse<T>(text: string | null, fallback: T): T {
  return text === null ? fallback : (JSON.parse(text) as T);
}
