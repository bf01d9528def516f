import type { ChainHost } from "../../../core/ports/chain";
import type { ViewWallet } from "./view-wallet";

/**
 * One subaddress per invoice, never handed out twice. The wallet makes them (`create_address`:
 * account 0, index 1, 2...), and the highest index issued is kept in the service's storage too:
 * a wallet RPC that lost its latest subaddresses (killed before it saved its file, or a wallet
 * made again) would count from a lower index and hand out an address an invoice already holds;
 * the stored index catches that, and the wallet is moved past it.
 */
export class Subaddresses {
  constructor(
    private readonly wallet: ViewWallet,
    private readonly host: ChainHost,
    private readonly namespace: string,
  ) {}

  private get counter(): string {
    return `${this.namespace}:last-subaddress`;
  }

  /** A fresh subaddress for `invoiceId` (its label in the wallet, which an operator sees in their own wallet too). */
  async issue(invoiceId: string): Promise<string> {
    let count = 1;
    for (let attempt = 0; attempt < 100_000; attempt++) {
      const made = await this.wallet.createAddress(count, invoiceId);
      const behind = await this.host.state.withLock(this.counter, async (state) => {
        const last = Number((await state.get(this.counter)) ?? "0");
        if (made.index <= last) return last - made.index;
        await state.set(this.counter, String(made.index));
        await state.set(`${this.namespace}:addr:${made.address}`, JSON.stringify({ major: 0, minor: made.index }));
        return null;
      });
      if (behind === null) return made.address;
      // The wallet is behind the stored index: move it past in one call (64 at most, the RPC's limit).
      count = Math.min(64, behind + 1);
    }
    throw new Error("the wallet RPC keeps answering subaddresses that were already issued");
  }
}
