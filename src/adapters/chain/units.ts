/**
 * Converts an on-chain amount to ledger units. The ledger keeps each coin at the currency
 * list's decimals (USDT: 6), while a token may have more on chain (USDT on BNB Smart Chain: 18):
 * the part below the ledger's smallest unit is dust and is not credited (rounded down, never up).
 */
export function toLedgerUnits(amount: bigint, chainDecimals: number, ledgerDecimals: number): bigint {
  if (chainDecimals >= ledgerDecimals) return amount / 10n ** BigInt(chainDecimals - ledgerDecimals);
  return amount * 10n ** BigInt(ledgerDecimals - chainDecimals);
}

/**
 * Converts ledger units to the on-chain amount a payout sends. Exact: the adapter refuses at
 * start-up a token with fewer decimals on chain than in the ledger.
 */
export function toChainUnits(amount: bigint, chainDecimals: number, ledgerDecimals: number): bigint {
  if (chainDecimals < ledgerDecimals) throw new RangeError(`a token with ${chainDecimals} decimals cannot carry ${ledgerDecimals}-decimal amounts exactly`);
  return amount * 10n ** BigInt(chainDecimals - ledgerDecimals);
}
