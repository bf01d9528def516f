import { sandboxChain, type SandboxChain } from "../../../../src/adapters/chain/sandbox";
import type { ChainAdapter } from "../../../../src/core/ports/chain";
import { DEFAULT_CURRENCIES } from "../../../../src/currencies";
import type { ChainTestPair, ChainTestSubject } from "../../../../src/testing/index";

/** Every coin/network pair of the default currency list. */
export const SANDBOX_PAIRS: ChainTestPair[] = DEFAULT_CURRENCIES.flatMap((currency) =>
  currency.networks.map(({ network }) => ({ coin: currency.symbol, network })),
);

const EVM_VALID = ["0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed", "0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359", "0xde709f2102306220921060314715629080e2fb77"];
const EVM_INVALID = [
  "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD", // checksum typo in the last letter
  "0x0000000000000000000000000000000000000000", // the burn address
  "5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed", // no 0x
  "0X5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed",
  "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeA", // 19 bytes
  "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed00", // 21 bytes
];

/**
 * Real addresses of each network (the sandbox follows the networks' own rules: address-rules.ts).
 * ETH, BSC and the rollups share the EVM format and list the same addresses.
 */
export const SANDBOX_VALID_ADDRESSES: Record<string, string[]> = {
  BTC: [
    "bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu",
    "1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2",
    "3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy",
    "tb1qcrh3yqn4nlleplcez2yndq2ry8h9ncg3qh7n54",
  ],
  LTC: ["ltc1qytnqzjknvv03jwfgrsmzt0ycmwqgl0asjnaxwu", "LT2KVaAy1ppRuxRgrS5RNU3vBsy7RibPeA", "MHrYRxAiMNBTku3eoDHwhA1LQGDjUStZW2"],
  ETH: EVM_VALID,
  BSC: EVM_VALID,
  BASE: EVM_VALID,
  POLYGON: EVM_VALID,
  ARBITRUM: EVM_VALID,
  OPTIMISM: EVM_VALID,
  TRX: ["TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7", "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t"],
  XMR: [
    "44AFFq5kSiGBoZ4NMDwYtN18obc8AemS33DBLWs3H7otXft3XjrpDtQGv7SqSsaBYBb98uNbr2VBBEt7f2wfn3RVGQBEP3A", // mainnet
    "54NHLfzi6KNBoZ4NMDwYtN18obc8AemS33DBLWs3H7otXft3XjrpDtQGv7SqSsaBYBb98uNbr2VBBEt7f2wfn3RVGRtzGna", // stagenet, same keys
  ],
};

/** Near misses of each network's rule. */
export const SANDBOX_INVALID_ADDRESSES: Record<string, string[]> = {
  BTC: [
    "bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyv", // bech32 checksum
    "1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN3", // base58check checksum
    "bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kemeawh", // version 0 program in bech32m
    "1111111111111111111114oLvT2", // all-zero hash
    "LT2KVaAy1ppRuxRgrS5RNU3vBsy7RibPeA", // Litecoin
  ],
  LTC: [
    "ltc1qytnqzjknvv03jwfgrsmzt0ycmwqgl0asjnaxwv", // bech32 checksum
    "3F1c6UWAs9RLN2Mbt5bAJue12VhVCorXzs", // old P2SH version: byte for byte a Bitcoin address
    "bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu", // Bitcoin
  ],
  ETH: EVM_INVALID,
  BSC: EVM_INVALID,
  BASE: EVM_INVALID,
  POLYGON: EVM_INVALID,
  ARBITRUM: EVM_INVALID,
  OPTIMISM: EVM_INVALID,
  TRX: [
    "TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU8", // base58check checksum
    "T9yD14Nj9j7xAB4dbGeiX9h8unkKHxuWwb", // the all-zero account
    "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed", // EVM
  ],
  XMR: [
    "44AFFq5kSiGBoZ4NMDwYtN18obc8AemS33DBLWs3H7otXft3XjrpDtQGv7SqSsaBYBb98uNbr2VBBEt7f2wfn3RVGQBEP3B", // checksum
    "44AFFq5kSiGBoZ4NMDwYtN18obc8AemS33DBLWs3H7otXft3XjrpDtQGv7SqSsaBYBb98uNbr2VBBEt7f2wfn3RVGQBEP3", // too short
    "bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu", // Bitcoin
  ],
};

/**
 * The sandbox chain as a conformance subject, its driver built on the sandbox's own payer and
 * miner methods: `pay` = createDeposit, `confirm` = setConfirmations (+blocks) on every deposit,
 * `dropSince` = drop every deposit made since the mark, `balanceOf` = what the sandbox recorded
 * as paid out to the address.
 *
 * `wrap` puts another adapter in front of the sandbox (the broken ones of
 * test/fixtures/broken-chains.ts); the driver still acts on the sandbox behind it, and a payout
 * counts whoever sent it.
 */
export function sandboxSubject(wrap: (chain: SandboxChain) => ChainAdapter = (chain) => chain): ChainTestSubject {
  const inner = sandboxChain();
  const deposits: string[] = [];
  const payoutIds = new Set<string>();
  // Every payout reaching the simulated chain, so balanceOf can add them up per address.
  const chain: SandboxChain = {
    ...inner,
    sendPayout: (request) => {
      payoutIds.add(request.payoutId);
      return inner.sendPayout(request);
    },
  };

  return {
    adapter: wrap(chain),
    pairs: SANDBOX_PAIRS,
    validAddresses: SANDBOX_VALID_ADDRESSES,
    invalidAddresses: SANDBOX_INVALID_ADDRESSES,
    async pay(pair: ChainTestPair, address: string, amount: bigint) {
      const { txHash } = inner.createDeposit({ ...pair, address, amount });
      deposits.push(txHash);
      return { txHash };
    },
    async confirm(blocks: number) {
      for (const txHash of deposits) {
        const deposit = inner.getDeposit(txHash);
        if (deposit && !deposit.dropped) inner.setConfirmations(txHash, deposit.confirmations + blocks);
      }
    },
    async mark() {
      return deposits.length;
    },
    async dropSince(mark: unknown) {
      for (const txHash of deposits.slice(mark as number)) inner.drop(txHash);
    },
    async balanceOf(pair: ChainTestPair, address: string) {
      let total = 0n;
      for (const payoutId of payoutIds) {
        const payout = inner.getPayout(payoutId);
        if (payout && payout.address === address && payout.coin === pair.coin && payout.network === pair.network) total += payout.amount;
      }
      return total;
    },
  };
}
