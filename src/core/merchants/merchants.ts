import { createHash, timingSafeEqual } from "node:crypto";
import type { Scope } from "../ports/storage/index";
import { notFound } from "../../errors";
import type { CoreContext } from "../context";
import { newId, randomToken } from "../../ids";
import type { ApiKeyRecord, MerchantRecord, Mode, PayoutApprovalRule } from "./records";
import { checkApprovalRule } from "../payouts/approval";
import { auditEntry } from "../audit/audit-log";

/** The shape every key has: mode prefix and at least 24 base62 characters of secret. */
export const API_KEY_PATTERN = /^sk_(test|live)_[A-Za-z0-9]{24,128}$/;

/** A key as shown to its owner once, at issue. */
export interface IssuedApiKey {
  id: string;
  merchantId: string;
  mode: Mode;
  /** The plaintext key. Only its hash is stored: show it now or never. */
  key: string;
  prefix: string;
  createdAt: string;
}

/** A key as listed later: everything but the secret. */
export interface ApiKeySummary {
  id: string;
  merchantId: string;
  mode: Mode;
  prefix: string;
  createdAt: string;
  revokedAt: string | null;
}

/**
 * Keys are 140+ bits of randomness, so one SHA-256 is enough at rest: there is nothing to
 * brute-force that a slow hash would protect, and auth stays one hash per request.
 */
export function hashApiKey(key: string): string {
  return createHash("sha256").update(key).digest("hex");
}

/** Creates a merchant. */
export async function createMerchant(context: CoreContext, input: { name: string; id?: string }): Promise<MerchantRecord> {
  const merchant: MerchantRecord = {
    id: input.id ?? newId("mch"),
    name: input.name,
    settleCurrency: null,
    payoutApproval: null,
    payoutAllowlist: false,
    createdAt: context.now(),
  };
  await context.storage.transaction((tx) => tx.insertMerchant(merchant));
  return merchant;
}

/**
 * Stores a key for a merchant, and an audit log entry of it (as `by`, else "host") in the same
 * transaction. With `key` given (a host that keeps a known test key across
 * restarts, like the example server's DEMO_API_KEY), that plaintext is registered instead of a
 * fresh one; its mode comes from its prefix.
 */
export async function issueApiKey(context: CoreContext, merchantId: string, options: { mode?: Mode; key?: string; by?: string }): Promise<IssuedApiKey> {
  if (!(await context.storage.getMerchant(merchantId))) throw notFound("merchant", merchantId);
  let key: string;
  if (options.key !== undefined) {
    const match = API_KEY_PATTERN.exec(options.key);
    if (!match) throw new TypeError("an API key must look like sk_test_<24+ letters and digits> or sk_live_<...>");
    if (options.mode && options.mode !== match[1]) throw new TypeError(`the key's prefix says ${match[1]} mode, not ${options.mode}`);
    key = options.key;
  } else {
    key = `sk_${options.mode ?? "test"}_${randomToken(32)}`;
  }
  const mode = key.startsWith("sk_live_") ? "live" : "test";
  const record: ApiKeyRecord = {
    id: newId("key"),
    merchantId,
    mode,
    hash: hashApiKey(key),
    prefix: key.slice(0, 12),
    createdAt: context.now(),
    revokedAt: null,
  };
  await context.storage.transaction(async (tx) => {
    await tx.insertApiKey(record);
    await tx.insertAuditEntry(auditEntry(context, { actor: actorOf(options.by), action: "api_key.issued", recordId: record.id, merchantId, mode }));
  });
  return { id: record.id, merchantId, mode, key, prefix: record.prefix, createdAt: new Date(record.createdAt).toISOString() };
}

/**
 * Sets the asset a merchant's payments are converted into when credited (auto-conversion), or
 * null to keep each coin. Applies to invoices created afterwards that do not choose their own.
 */
export async function setSettleCurrency(context: CoreContext, merchantId: string, symbol: string | null): Promise<MerchantRecord> {
  if (symbol !== null && !context.currencies.crypto(symbol)) throw new TypeError(`settleCurrency: "${symbol}" is not a supported crypto currency`);
  return context.storage.transaction(async (tx) => {
    const merchant = await tx.getMerchant(merchantId);
    if (!merchant) throw notFound("merchant", merchantId);
    const updated = { ...merchant, settleCurrency: symbol };
    await tx.updateMerchant(updated);
    return updated;
  });
}

/**
 * Sets a merchant's own payout approval threshold (see `needsApproval`), or null to follow the
 * router's (`payouts.approval`). Applies to payouts asked for afterwards; payouts held already
 * stay held. A TypeError names a bad threshold. A change is recorded in the audit log (as `by`,
 * else "host") in the same transaction; setting the threshold it has records nothing.
 */
export async function setPayoutApproval(
  context: CoreContext,
  merchantId: string,
  rule: PayoutApprovalRule | null,
  options: { by?: string } = {},
): Promise<MerchantRecord> {
  const checked = rule === null ? null : checkApprovalRule(context, rule, "setPayoutApproval");
  const actor = actorOf(options.by);
  return context.storage.transaction(async (tx) => {
    const merchant = await tx.getMerchant(merchantId);
    if (!merchant) throw notFound("merchant", merchantId);
    if (merchant.payoutApproval?.above === checked?.above && merchant.payoutApproval?.currency === checked?.currency) return merchant;
    const updated = { ...merchant, payoutApproval: checked };
    await tx.updateMerchant(updated);
    await tx.insertAuditEntry(auditEntry(context, { actor, action: "payout_approval.changed", recordId: merchantId, merchantId, mode: null }));
    return updated;
  });
}

/**
 * Revokes a key; it stops working at once. Returns false when it was unknown or revoked already.
 * The audit log records it (as `by`, else "host") in the same transaction.
 */
export async function revokeApiKey(context: CoreContext, keyId: string, options: { by?: string } = {}): Promise<boolean> {
  return context.storage.transaction(async (tx) => {
    const key = await tx.getApiKey(keyId);
    if (!key || !(await tx.revokeApiKey(keyId, context.now()))) return false;
    await tx.insertAuditEntry(
      auditEntry(context, { actor: actorOf(options.by), action: "api_key.revoked", recordId: keyId, merchantId: key.merchantId, mode: key.mode }),
    );
    return true;
  });
}

/** Who the audit log names for a call of the host application: the user it gave, else "host". */
function actorOf(by: string | undefined): string {
  if (by !== undefined && (typeof by !== "string" || by.trim() === "")) throw new TypeError("by must name who acts: a non-empty string");
  return by ?? "host";
}

/** A merchant's keys, without secrets. */
export async function listApiKeys(context: CoreContext, merchantId: string): Promise<ApiKeySummary[]> {
  return (await context.storage.listApiKeys(merchantId)).map((key) => ({
    id: key.id,
    merchantId: key.merchantId,
    mode: key.mode,
    prefix: key.prefix,
    createdAt: new Date(key.createdAt).toISOString(),
    revokedAt: key.revokedAt === null ? null : new Date(key.revokedAt).toISOString(),
  }));
}

/** Who a valid key speaks for: the merchant and mode it grants, and the merchant as read with it. */
export interface Caller {
  scope: Scope;
  /** The merchant's record at authentication (its settings, such as the default settleCurrency). */
  merchant: MerchantRecord;
  /** Who asks, recorded as a payout's `requestedBy`: the API key's id; null for an in-process call. */
  actor: string | null;
}

/** What a plaintext key grants, or null for a malformed, unknown or revoked key. */
export async function authenticate(context: CoreContext, key: string): Promise<Caller | null> {
  if (!API_KEY_PATTERN.test(key)) return null;
  const hash = hashApiKey(key);
  const found = await context.storage.findApiKeyByHash(hash);
  if (!found) return null;
  const { key: record, merchant } = found;
  // The lookup is by hash, so timing reveals nothing about the key; the compare guards against
  // an adapter whose lookup is looser than equality (a prefix index, a case-folding collation).
  if (record.revokedAt !== null || merchant.id !== record.merchantId || !timingSafeEqual(Buffer.from(record.hash), Buffer.from(hash))) return null;
  return { scope: { merchantId: record.merchantId, mode: record.mode }, merchant, actor: record.id };
}
