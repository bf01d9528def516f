/**
 * Values a Bitcoin-family adapter keeps per account (its address counters, its list of unused
 * receive addresses), so that an operator who rotates to a new account starts the new one at its
 * own `0/0` and `1/0`, where a wallet restored from its seed looks, and never hands out the
 * previous account's addresses again.
 */

/** The current account, as the per-account values are read for it. */
export interface StateAccount {
  /** Its identity (`accountId`). */
  id: string;
  /** Its receive address 0/0, encoded for the node's chain. */
  firstReceive: () => Promise<string>;
}

/** The storage key of the per-account value `name` of `account`. */
export function perAccountKey(namespace: string, name: string, account: StateAccount): string {
  return `${namespace}:${name}:${account.id}`;
}

/**
 * The per-account value `name` of `account`, or null. Versions before values were kept per
 * account kept one of each under `<namespace>:<name>`, for whichever account was configured:
 * the current account takes that value over when it was its own, which shows in its receive
 * address 0/0 having been issued and recorded without an account (as those versions recorded
 * addresses). An account configured after a rotation finds its 0/0 unissued, or recorded with
 * its identity, and starts afresh.
 */
export async function readPerAccount(
  get: (key: string) => Promise<string | null>,
  namespace: string,
  name: string,
  account: StateAccount,
): Promise<string | null> {
  const own = await get(perAccountKey(namespace, name, account));
  if (own !== null) return own;
  const first = await get(`${namespace}:addr:${await account.firstReceive()}`);
  if (first === null || (JSON.parse(first) as { account?: string }).account !== undefined) return null;
  return get(`${namespace}:${name}`);
}
