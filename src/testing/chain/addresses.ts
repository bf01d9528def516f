import { describe, expect, it } from "vitest";
import { addressFamily, type AddressFamily } from "../../adapters/chain/address-rules";
import type { ChainTestPair } from "./types";
import { label, MERCHANT, type ChainSuiteContext, type ChainTestRun } from "./context";

/**
 * Well-known mainnet addresses of each address family. On a network code the default rule table
 * knows, those of the other families must be refused: a payout there is lost.
 */
const FOREIGN: Record<AddressFamily, string[]> = {
  evm: ["0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed", "0xde709f2102306220921060314715629080e2fb77"],
  bitcoin: ["bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu", "1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2", "3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy"],
  litecoin: ["ltc1qytnqzjknvv03jwfgrsmzt0ycmwqgl0asjnaxwu", "LT2KVaAy1ppRuxRgrS5RNU3vBsy7RibPeA", "MHrYRxAiMNBTku3eoDHwhA1LQGDjUStZW2"],
  tron: ["TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7", "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t"],
  // The Monero General Fund's donation address.
  monero: ["44AFFq5kSiGBoZ4NMDwYtN18obc8AemS33DBLWs3H7otXft3XjrpDtQGv7SqSsaBYBb98uNbr2VBBEt7f2wfn3RVGQBEP3A"],
};

/** createAddress and isValidAddress. */
export function addressTests(ctx: ChainSuiteContext): void {
  describe("addresses", () => {
    it("supports every coin/network pair it is tested on", () => {
      const { adapter, pairs } = ctx.run();
      expect(pairs.filter((pair) => !adapter.supports(pair.coin, pair.network)).map(label)).toEqual([]);
    });

    it("finds its node serving what it was configured for (ready()), and names whole confirmations of at least 1", async () => {
      const { adapter, pairs } = ctx.run();
      await adapter.ready?.();
      for (const pair of pairs) {
        const required = adapter.requiredConfirmations?.(pair.coin, pair.network);
        if (required !== undefined) expect(Number.isSafeInteger(required) && required >= 1, `requiredConfirmations(${label(pair)}) = ${required}`).toBe(true);
      }
    });

    it("issues distinct addresses to distinct invoices", async () => {
      const run = ctx.run();
      for (const pair of run.pairs) {
        const addresses = new Set<string>();
        for (let i = 0; i < 6; i++) {
          // run.issue throws, naming both invoices, when an address comes back a second time.
          const address = await run.issue(pair);
          expect(typeof address, `createAddress(${label(pair)}) returns a string`).toBe("string");
          expect(address.length, `createAddress(${label(pair)}) returns a non-empty address`).toBeGreaterThan(0);
          addresses.add(address);
        }
        expect(addresses.size, label(pair)).toBe(6);
      }
    });

    it("never returns one address for two invoices, even when many are issued at once", async () => {
      const run = ctx.run();
      for (const pair of run.pairs) {
        const addresses = await Promise.all(
          Array.from({ length: 16 }, () => run.adapter.createAddress({ ...pair, merchantId: MERCHANT, invoiceId: run.invoiceId() })),
        );
        expect(new Set(addresses).size, `${label(pair)}: 16 invoices issued at once got ${new Set(addresses).size} distinct addresses`).toBe(16);
      }
    });

    it("accepts every well-formed destination listed for the network", async () => {
      const run = ctx.run();
      const wrong = await judge(run, (pair) => run.subject.validAddresses[pair.network] ?? [], true);
      expect(wrong, "valid destinations answered otherwise than true").toEqual([]);
    });

    it("refuses every malformed destination listed for the network", async () => {
      const run = ctx.run();
      const wrong = await judge(run, (pair) => run.subject.invalidAddresses[pair.network] ?? [], false);
      expect(wrong, "malformed destinations answered otherwise than false").toEqual([]);
    });

    it("refuses garbage without throwing: empty, 10,000 characters, NUL, unicode, padding, other text", async () => {
      const run = ctx.run();
      const wrong = await judge(run, (pair) => garbage(run.destination(pair)), false);
      expect(wrong, "garbage answered otherwise than false").toEqual([]);
    });

    it("refuses addresses of another network's format", async () => {
      const run = ctx.run();
      const wrong = await judge(run, (pair) => foreign(run, pair), false);
      expect(wrong, "other networks' addresses answered otherwise than false").toEqual([]);
    });
  });
}

/**
 * Asks isValidAddress about each pair's addresses and lists every answer that is not
 * `expected` (a rejection, or a non-boolean, counts as wrong).
 */
async function judge(run: ChainTestRun, addresses: (pair: ChainTestPair) => readonly string[], expected: boolean): Promise<string[]> {
  const wrong: string[] = [];
  for (const pair of run.pairs) {
    for (const address of addresses(pair)) {
      let answer: unknown;
      try {
        answer = await run.adapter.isValidAddress(pair.coin, pair.network, address);
      } catch (error) {
        answer = `a rejection: ${(error as Error)?.message ?? String(error)}`;
      }
      if (answer !== expected) wrong.push(`${label(pair)} ${show(address)} -> ${typeof answer === "string" ? answer : String(answer)}`);
    }
  }
  return wrong;
}

/** Strings no network takes as a destination, built around one of its valid addresses. */
function garbage(valid: string): string[] {
  return [
    "",
    " ",
    "x".repeat(10_000),
    `${valid}${"0".repeat(10_000)}`,
    "\u0000",
    `${valid}\u0000`,
    `\u0000${valid}`,
    ` ${valid}`,
    `${valid} `,
    `${valid}\n`,
    `\u200b${valid}`,
    "💸".repeat(20),
    "ｂｃ１ｑｃｒ８ｔｅ４ｋｒ６０９ｇｃａｗｕｔｍｒｚａ０ｊ４ｘｖ８０ｊｙ８ｚ３０６ｆｙｕ",
    "\ud800\udfff\ud800",
    "not-an-address",
    "null",
    "undefined",
    "[object Object]",
    "0x",
  ];
}

/**
 * Addresses of other formats: on a network code the default rule table knows, the well-known
 * addresses of every other family, and the subject's valid addresses of networks of another
 * family. A network the table does not know gets none (the suite cannot tell its format).
 */
function foreign(run: ChainTestRun, pair: ChainTestPair): string[] {
  const family = addressFamily(pair.network);
  if (family === null) return [];
  const own = new Set(run.subject.validAddresses[pair.network] ?? []);
  const found = new Set<string>();
  for (const [other, samples] of Object.entries(FOREIGN) as Array<[AddressFamily, string[]]>) {
    if (other !== family) for (const sample of samples) found.add(sample);
  }
  for (const [network, addresses] of Object.entries(run.subject.validAddresses)) {
    const other = addressFamily(network);
    if (other !== null && other !== family) for (const address of addresses) found.add(address);
  }
  return [...found].filter((address) => !own.has(address));
}

/** An address for a message: quoted, cut short when long. */
function show(address: string): string {
  const quoted = JSON.stringify(address.length > 60 ? `${address.slice(0, 60)}…` : address);
  return address.length > 60 ? `${quoted} (${address.length} chars)` : quoted;
}
