import { PaymentError } from "../../../errors";
import type { AddressUse, ChainHost, ChainStateView } from "../../../core/ports/chain";
import { perAccountKey, readPerAccount, type StateAccount } from "./account-state";

/** One receive address handed out and not known to have received anything. */
interface Unused {
  /** Its BIP84 index on the receive branch (0/i). */
  index: number;
  address: string;
  /** When it was last handed to an invoice, on the service's clock. */
  at: number;
  /** The invoice it was last handed to. */
  invoiceId?: string;
}

/** What the deposit addresses need. */
export interface DepositAddressSettings {
  host: ChainHost;
  /** The adapter's state namespace ("bitcoin:LTC"); the receive counter and the address paths are the wallet's keys under it. */
  namespace: string;
  /** The configured account: the receive counter and the unused list are its own (a rotated-to account starts at its 0/0). */
  account: StateAccount;
  coin: string;
  network: string;
  /** Unused receive addresses allowed at once. */
  gapLimit: number;
  /** The receive address at `index` (0/index), encoded for the node's chain. */
  derive: (index: number) => Promise<string>;
}

/**
 * An address handed out again stays with the invoice it was handed to for this long before it
 * may be handed out once more, whatever the records say: that covers the moment between
 * handing it out and the service recording it (and an invoice that never got recorded).
 */
const HOLD_MS = 10 * 60_000;

/** What an attempt answers when no address may go out. */
const EXHAUSTED = Symbol("exhausted");

/**
 * The deposit (receive) addresses of a Bitcoin-family account, kept within a gap limit.
 *
 * A wallet restored from the seed looks at receive addresses 0, 1, 2... and stops after
 * `gapLimit` unused ones in a row (20 in BIP44 and most wallets): a payment past such a run
 * would be invisible to it. So at most `gapLimit` handed-out addresses are ever unused at once:
 * whatever their order, no payment can then lie beyond a run of `gapLimit` unused ones. Once
 * the limit is reached, a new invoice gets an unused address back from an invoice that can no
 * longer be paid through it (same merchant, never paid, late-payment window over: the host
 * says which), oldest first; when there is none, issuing answers 503 (50301) saying why.
 *
 * The list of unused addresses lives in the adapter's durable state, shared by every instance;
 * an address leaves it for good when the service says something was received at it. The list and
 * the receive counter are the configured account's: after a rotation to another account, the
 * new one issues its own 0/0, 0/1... and never hands out the previous account's addresses again
 * (a payment to one of those is still credited: the service watches every address it issued).
 */
export class DepositAddresses {
  constructor(private readonly settings: DepositAddressSettings) {}

  private key(name: string): string {
    return `${this.settings.namespace}:${name}`;
  }

  /**
   * A deposit address for invoice `invoiceId` of `merchantId`: the one handed to that invoice
   * already if there is one (several choices of one invoice at once get one address, not one
   * each), else a fresh index while the gap allows, else one handed out again.
   */
  async issue(merchantId: string, invoiceId: string): Promise<string> {
    // The first pass may find the gap filled by another invoice meanwhile, without the
    // service's records at hand: the second pass reads them.
    const chosen = (await this.attempt(merchantId, invoiceId)) ?? (await this.attempt(merchantId, invoiceId));
    if (chosen === null || chosen === EXHAUSTED) return this.exhausted();
    return chosen;
  }

  /** An address; EXHAUSTED when none may go out; null when the gap filled meanwhile and the service's records were not read. */
  private async attempt(merchantId: string, invoiceId: string): Promise<string | typeof EXHAUSTED | null> {
    const { host, gapLimit } = this.settings;
    // What the service knows is read before taking the lock (the lock is a storage transaction
    // of its own). It only narrows the choice: the service checks again when it records.
    const get = (key: string) => host.state.get(key);
    const known = await this.unused(await this.read(get, "unused-receive"), await this.read(get, "next-receive"));
    const asked = known.length >= gapLimit;
    const use = new Map<string, AddressUse>();
    if (asked)
      for (const entry of await host.addressUse(
        this.settings.network,
        known.map((item) => item.address),
        merchantId,
      ))
        use.set(entry.address, entry);
    const askedAbout = new Set(known.map((item) => item.address));
    const counter = perAccountKey(this.settings.namespace, "next-receive", this.settings.account);
    return host.state.withLock(counter, async (state) => {
      const read = (key: string) => state.get(key);
      const next = Number((await this.read(read, "next-receive")) ?? "0");
      const unused = (await this.unused(await this.read(read, "unused-receive"), String(next))).filter((entry) => !use.get(entry.address)?.received);
      const now = host.now();
      const already = unused.find((entry) => entry.invoiceId === invoiceId);
      if (already) return already.address;
      if (unused.length < gapLimit) {
        const address = await this.settings.derive(next);
        await state.set(counter, String(next + 1));
        // The path and the account: a late payment to it, after a rotation, is known as the previous account's.
        await state.set(this.key(`addr:${address}`), JSON.stringify({ branch: 0, index: next, account: this.settings.account.id }));
        await this.save(state, [...unused, { index: next, address, at: now, invoiceId }]);
        return address;
      }
      if (!asked) return null;
      // Reusable: the service says so, or it never recorded the address at all (it was handed
      // to an invoice that was never saved, such as the loser of two choices at once).
      const chosen = unused
        .filter((entry) => now - entry.at >= HOLD_MS && askedAbout.has(entry.address) && (use.get(entry.address)?.reusable ?? true))
        .sort((a, b) => a.at - b.at || a.index - b.index)[0];
      // Saved either way: what was learnt (addresses now used) is kept, and the list is built once.
      await this.save(state, chosen ? unused.map((entry) => (entry === chosen ? { ...entry, at: now, invoiceId } : entry)) : unused);
      return chosen ? chosen.address : EXHAUSTED;
    });
  }

  private exhausted(): never {
    throw new PaymentError(
      "chain_unavailable",
      `No ${this.settings.coin} deposit address can be issued right now: the ${this.settings.gapLimit} unused addresses the wallet's gap limit allows are all held by payments that may still be paid ` +
        "(open, or expired less than the late-payment window ago). Please try again later: the address of a payment that expires unpaid is used again once that window has passed.",
    );
  }

  /**
   * The stored list; when there is none yet but addresses were issued (a service that ran
   * before the list was kept), every issued receive address, derived again, so that the first
   * look at the service's records prunes the used ones.
   */
  private async unused(stored: string | null, next: string | null): Promise<Unused[]> {
    if (stored !== null) return JSON.parse(stored) as Unused[];
    const count = Number(next ?? "0");
    const all: Unused[] = [];
    for (let index = 0; index < count; index++) all.push({ index, address: await this.settings.derive(index), at: 0 });
    return all;
  }

  /** The account's value `name` (see readPerAccount). */
  private read(get: (key: string) => Promise<string | null>, name: string): Promise<string | null> {
    return readPerAccount(get, this.settings.namespace, name, this.settings.account);
  }

  private async save(state: ChainStateView, unused: readonly Unused[]): Promise<void> {
    await state.set(perAccountKey(this.settings.namespace, "unused-receive", this.settings.account), JSON.stringify(unused));
  }
}
