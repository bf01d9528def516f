import { notFound, PaymentError } from "../../errors";
import { newId } from "../../ids";
import { auditEntry } from "../audit/audit-log";
import type { CoreContext } from "../context";
import type { AllowedAddressRecord } from "./records";
import type { MerchantRecord, Mode } from "../merchants/records";
import type { Scope, StorageTransaction } from "../ports/storage/index";

/**
 * The payout allowlist: per merchant, off by default. While it is on, every payout (a /v1
 * withdrawal, an /api/v1 payout, a refund) must go to an address of the merchant's list for its
 * mode and network that an admin approved, and whose cooling-off has passed since. An address
 * is proposed by one person and approved by another; removal takes effect at once. Every change
 * is recorded in the audit log in its own transaction.
 */

/** The cooling-off after an approval when the router sets none: a day. */
export const DEFAULT_COOLING_OFF_HOURS = 24;

/** The longest label an address may carry. */
const LABEL_MAX = 100;
/** The longest address accepted (the longest real ones, bech32m, are 90 characters). */
const ADDRESS_MAX = 200;

/** Where an address of the allowlist stands. */
export type AllowedAddressState = "awaiting_approval" | "cooling_off" | "usable";

/** An address of a merchant's payout allowlist as the admin API shows it: times in ISO 8601, and its state now. */
export interface AllowedAddress {
  id: string;
  merchantId: string;
  mode: Mode;
  network: string;
  address: string;
  label: string | null;
  proposedBy: string;
  approvedBy: string | null;
  approvedAt: string | null;
  /** From when payouts may go to it; null while it awaits approval. */
  usableAt: string | null;
  createdAt: string;
  /** `awaiting_approval` until approved, `cooling_off` until `usableAt`, then `usable`. */
  state: AllowedAddressState;
}

/** What `addAllowedAddress` takes: where, which address, and who proposes it. */
export interface AllowedAddressInput {
  merchantId: string;
  mode: Mode;
  /** A network code of the currency list ("ETH", "BSC", "BTC", "TRX"). */
  network: string;
  address: string;
  /** A name for people, up to 100 characters. */
  label?: string | null;
  /** Who proposes it (your user's id); someone else must approve it. */
  by: string;
}

/**
 * The form under which two spellings of one address compare equal. An EVM address is hex whose
 * letter case only carries a checksum (EIP-55), so `0x` and 40 hex digits compare in lower
 * case; every other form (Bitcoin's base58 and bech32 as wallets write them, TRON's base58)
 * compares exactly, as its network does.
 */
export function addressKeyOf(address: string): string {
  return /^0x[0-9a-fA-F]{40}$/.test(address) ? address.toLowerCase() : address;
}

/** The state of an entry at `now`. */
export function allowedAddressState(entry: AllowedAddressRecord, now: number): AllowedAddressState {
  if (entry.usableAt === null) return "awaiting_approval";
  return now < entry.usableAt ? "cooling_off" : "usable";
}

/** An entry as the admin API shows it, with its state at `now`. */
export function allowedAddressView(entry: AllowedAddressRecord, now: number): AllowedAddress {
  const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
  return {
    id: entry.id,
    merchantId: entry.merchantId,
    mode: entry.mode,
    network: entry.network,
    address: entry.address,
    label: entry.label,
    proposedBy: entry.proposedBy,
    approvedBy: entry.approvedBy,
    approvedAt: iso(entry.approvedAt),
    usableAt: iso(entry.usableAt),
    createdAt: iso(entry.createdAt)!,
    state: allowedAddressState(entry, now),
  };
}

/**
 * Refuses, with `destination_not_allowed` (422, error 42204), a payout to `address` on
 * `network` in `scope` when the merchant's allowlist is on and the address is not usable on it:
 * not listed, awaiting approval, or still cooling off (the message then says when it becomes
 * usable). Runs inside the payout's transaction, before its debit, so a refused payout debits
 * nothing and an address removed before the payout commits is not paid.
 */
export async function refuseUnlistedDestination(context: CoreContext, tx: StorageTransaction, scope: Scope, network: string, address: string): Promise<void> {
  const merchant = await tx.getMerchant(scope.merchantId);
  if (!merchant?.payoutAllowlist) return;
  const found = await tx.findAllowedAddress(scope, network, addressKeyOf(address));
  // Locked, so that a removal committed before this payout commits is seen: the lock waits for
  // it and then finds nothing. Payouts of one asset wait for each other on the balance anyway.
  const entry = found && (await tx.lockAllowedAddress(found.id));
  const where = `${network} (${scope.mode} mode)`;
  if (!entry) throw new PaymentError("destination_not_allowed", `${address} is not on this merchant's payout allowlist for ${where}.`);
  if (entry.usableAt === null) {
    throw new PaymentError("destination_not_allowed", `${address} is not on this merchant's payout allowlist for ${where} yet: it awaits an admin's approval.`);
  }
  const now = context.now();
  if (now < entry.usableAt) {
    throw new PaymentError("destination_not_allowed", `${address} becomes usable at ${new Date(entry.usableAt).toISOString()} (cooling-off) on ${where}.`);
  }
}

/**
 * Turns a merchant's payout allowlist on or off. Recorded in the audit log (as `by`, else
 * "host") when it changes; setting what is set already changes and records nothing.
 */
export async function setAllowlist(context: CoreContext, merchantId: string, setting: { enabled: boolean; by?: string }): Promise<MerchantRecord> {
  if (typeof setting?.enabled !== "boolean") throw new TypeError("setAllowlist: enabled must be true or false");
  const actor = actorOf(setting.by, "setAllowlist");
  return context.storage.transaction(async (tx) => {
    const merchant = await tx.getMerchant(merchantId);
    if (!merchant) throw notFound("merchant", merchantId);
    if (merchant.payoutAllowlist === setting.enabled) return merchant;
    const updated = { ...merchant, payoutAllowlist: setting.enabled };
    await tx.updateMerchant(updated);
    const action = setting.enabled ? "payout_allowlist.enabled" : "payout_allowlist.disabled";
    await tx.insertAuditEntry(auditEntry(context, { actor, action, recordId: merchantId, merchantId, mode: null }));
    return updated;
  });
}

/**
 * Proposes an address for a merchant's allowlist in one mode and on one network. It awaits an
 * approval by someone other than `by`. Refused (a `PaymentError`) for an unknown network, an
 * address the network's chain says is invalid, or one listed already (`invalid_state`).
 */
export async function addAllowedAddress(context: CoreContext, input: AllowedAddressInput): Promise<AllowedAddress> {
  const by = actorOf(input?.by, "addAllowedAddress", true);
  const { merchantId, mode, network } = input;
  if (mode !== "test" && mode !== "live") throw new PaymentError("validation_error", 'mode must be "test" or "live".');
  const address = typeof input.address === "string" ? input.address.trim() : "";
  if (address === "" || address.length > ADDRESS_MAX || /\p{Cc}|\s/u.test(address)) {
    throw new PaymentError("validation_error", `address must be an address of ${String(network)}, without spaces, up to ${ADDRESS_MAX} characters.`);
  }
  const label = checkLabel(input.label);
  await checkAddress(context, mode, network, address);
  const now = context.now();
  const entry: AllowedAddressRecord = {
    id: newId("pad"),
    merchantId,
    mode,
    network,
    address,
    addressKey: addressKeyOf(address),
    label,
    proposedBy: by,
    approvedBy: null,
    approvedAt: null,
    usableAt: null,
    createdAt: now,
  };
  const listedAlready = (listed: AllowedAddressRecord) =>
    new PaymentError("invalid_state", `${address} is already on this merchant's payout allowlist for ${network} (${mode} mode), as ${listed.id}.`);
  try {
    await context.storage.transaction(async (tx) => {
      if (!(await tx.getMerchant(merchantId))) throw notFound("merchant", merchantId);
      const listed = await tx.findAllowedAddress({ merchantId, mode }, network, entry.addressKey);
      if (listed) throw listedAlready(listed);
      await tx.insertAllowedAddress(entry);
      await tx.insertAuditEntry(auditEntry(context, { actor: by, action: "payout_address.added", recordId: entry.id, merchantId, mode }));
    });
  } catch (error) {
    if (error instanceof PaymentError) throw error;
    // Two proposals of one address at once: the later meets the storage's unique key, and is
    // answered as if it had come second.
    const listed = await context.storage.findAllowedAddress({ merchantId, mode }, network, entry.addressKey);
    if (listed && listed.id !== entry.id) throw listedAlready(listed);
    throw error;
  }
  return allowedAddressView(entry, now);
}

/**
 * Approves a proposed address, as `by`: it becomes usable once the router's cooling-off
 * (`payouts.allowlist.coolingOffHours`, default 24) has passed. Refused with
 * `approval_by_requester` (403) when `by` proposed it, `invalid_state` (409) when it was
 * approved already, `not_found` when unknown.
 */
export async function approveAllowedAddress(context: CoreContext, id: string, review: { by: string }): Promise<AllowedAddress> {
  const by = actorOf(review?.by, "approveAllowedAddress", true);
  return context.storage.transaction(async (tx) => {
    const current = await tx.lockAllowedAddress(id);
    if (!current) throw notFound("payout address", id);
    if (current.approvedAt !== null) throw new PaymentError("invalid_state", `Payout address ${id} was approved already, by ${current.approvedBy}.`);
    if (current.proposedBy === by) {
      throw new PaymentError("approval_by_requester", `Payout address ${id} was proposed by ${by}; someone else must approve it.`);
    }
    const now = context.now();
    const approved: AllowedAddressRecord = { ...current, approvedBy: by, approvedAt: now, usableAt: now + coolingOffMs(context) };
    await tx.updateAllowedAddress(approved);
    await tx.insertAuditEntry(
      auditEntry(context, { actor: by, action: "payout_address.approved", recordId: id, merchantId: current.merchantId, mode: current.mode }),
    );
    return allowedAddressView(approved, now);
  });
}

/** Removes an address from the allowlist at once, as `by` (awaiting approval, cooling off or usable). `not_found` when unknown. */
export async function removeAllowedAddress(context: CoreContext, id: string, review: { by: string }): Promise<AllowedAddress> {
  const by = actorOf(review?.by, "removeAllowedAddress", true);
  return context.storage.transaction(async (tx) => {
    const current = await tx.lockAllowedAddress(id);
    if (!current) throw notFound("payout address", id);
    await tx.deleteAllowedAddress(id);
    await tx.insertAuditEntry(
      auditEntry(context, { actor: by, action: "payout_address.removed", recordId: id, merchantId: current.merchantId, mode: current.mode }),
    );
    return allowedAddressView(current, context.now());
  });
}

/** A merchant's allowlist, of one mode or both, oldest first, each address with its state now. */
export async function listAllowedAddresses(context: CoreContext, merchantId: string, options: { mode?: Mode } = {}): Promise<AllowedAddress[]> {
  if (options.mode !== undefined && options.mode !== "test" && options.mode !== "live")
    throw new TypeError('listAllowedAddresses: mode must be "test" or "live"');
  const now = context.now();
  return (await context.storage.listAllowedAddresses(merchantId, options.mode)).map((entry) => allowedAddressView(entry, now));
}

function coolingOffMs(context: CoreContext): number {
  return (context.allowlistCoolingOffHours ?? DEFAULT_COOLING_OFF_HOURS) * 3_600_000;
}

/**
 * Who acts: `by` as given. Required for proposals and reviews, where the second-person rule
 * compares it; optional (then "host") for turning the list on or off.
 */
function actorOf(by: unknown, where: string, required = false): string {
  if (by === undefined && !required) return "host";
  if (typeof by !== "string" || by.trim() === "") throw new TypeError(`${where}: by must name who acts: a non-empty string`);
  return by;
}

function checkLabel(label: unknown): string | null {
  if (label === undefined || label === null) return null;
  if (typeof label !== "string" || label.length > LABEL_MAX || /\p{Cc}/u.test(label)) {
    throw new PaymentError("validation_error", `label must be text of at most ${LABEL_MAX} characters.`);
  }
  return label.trim() || null;
}

/**
 * The network must be one of the currency list; when a chain serves it in `mode`, that chain
 * judges the address as it judges a payout's (with no chain yet, as in live mode before one is
 * configured, the address is kept as given and the payout's own check runs later).
 */
async function checkAddress(context: CoreContext, mode: Mode, network: string, address: string): Promise<void> {
  const coins = context.currencies.currencies.filter((currency) => currency.networks.some((entry) => entry.network === network));
  if (typeof network !== "string" || coins.length === 0) {
    const known = [...new Set(context.currencies.currencies.flatMap((currency) => currency.networks.map((entry) => entry.network)))].join(", ");
    throw new PaymentError("unsupported_currency", `Network "${String(network)}" is not in the currency list; use one of ${known}.`);
  }
  for (const coin of coins) {
    const chain = context.chains.forPair(mode, coin.symbol, network);
    if (!chain) continue;
    if (!(await chain.isValidAddress(coin.symbol, network, address))) {
      throw new PaymentError("invalid_address", `"${address}" is not a valid address on ${network}.`);
    }
    return;
  }
}
