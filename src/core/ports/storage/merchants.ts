import type { ApiKeyRecord, MerchantRecord } from "../../merchants/records";

/** An API key and the merchant it belongs to: what authenticating a request needs, in one read. */
export interface ApiKeyMatch {
  key: ApiKeyRecord;
  merchant: MerchantRecord;
}

/**
 * Reads of merchants and their API keys. Neither is scoped: a merchant spans both modes, and a
 * key is found by its hash before anyone knows who is asking. Only key hashes are stored, never
 * a key itself.
 */
export interface MerchantReads {
  /** The merchant with this id, or null. */
  getMerchant(id: string): Promise<MerchantRecord | null>;
  /**
   * The key whose hash this is (revoked ones included, so callers can tell) with its merchant
   * as stored now, or null (also when the merchant is missing). One read, because every
   * authenticated request needs both.
   */
  findApiKeyByHash(hash: string): Promise<ApiKeyMatch | null>;
  /** The key with this id, revoked or not, or null. */
  getApiKey(id: string): Promise<ApiKeyRecord | null>;
  /** All keys of a merchant, oldest first, revoked ones included; empty for an unknown merchant. */
  listApiKeys(merchantId: string): Promise<ApiKeyRecord[]>;
}

/**
 * Merchants and API keys, as a transaction sees them. A merchant id and a key's id and hash are
 * each unique. Keys are never deleted: a revoked key stays, so that a request made with it is
 * told it was revoked rather than unknown.
 */
export interface MerchantStore extends MerchantReads {
  /** Stores a new merchant. Throws if the id exists. */
  insertMerchant(merchant: MerchantRecord): Promise<void>;
  /** Replaces the stored merchant with the same id (which must exist: throws otherwise). */
  updateMerchant(merchant: MerchantRecord): Promise<void>;
  /** Stores a new key. Throws if the id or the hash exists. */
  insertApiKey(key: ApiKeyRecord): Promise<void>;
  /** Marks a key revoked at `at`; returns false when no such key exists or it was revoked already. */
  revokeApiKey(id: string, at: number): Promise<boolean>;
}
