import { PriceSourceError, type PriceSource, type SourcePrice } from "../../../src/adapters/pricing/sources/types";

/**
 * A source whose prices and behaviour a test sets (`state`): USD prices (or `quote`) observed
 * `ageSeconds` before now, until the test makes it fail or hang (`hang`: until its signal
 * aborts; `deaf`: for ever, ignoring its signal).
 */
export function scripted(name: string, prices: Record<string, string>, options: { quote?: string; ageSeconds?: number; timeoutMs?: number } = {}) {
  const state = { prices: { ...prices }, fail: null as string | null, hang: false, deaf: false, calls: 0, ageSeconds: options.ageSeconds ?? 0 };
  const source: PriceSource & { state: typeof state } = {
    name,
    timeoutMs: options.timeoutMs ?? 1000,
    state,
    async fetch({ bases, now, signal }): Promise<SourcePrice[]> {
      state.calls++;
      if (state.deaf) await new Promise(() => undefined);
      if (state.hang) await new Promise((_, reject) => signal.addEventListener("abort", () => reject(new PriceSourceError(name, "aborted"))));
      if (state.fail) throw new PriceSourceError(name, state.fail);
      const at = new Date(now().getTime() - state.ageSeconds * 1000);
      return bases.filter((base) => state.prices[base] !== undefined).map((base) => ({ base, quote: options.quote ?? "USD", price: state.prices[base]!, at }));
    },
  };
  return source;
}
