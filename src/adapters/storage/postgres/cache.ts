import type { MerchantRecord } from "../../../core/merchants/records";
import type { WebhookEndpointRecord } from "../../../core/webhooks/records";
import type { ApiKeyMatch, Scope } from "../../../core/ports/storage/index";
import { shared } from "./shared";

/** Tables whose committed rows the cache keeps. */
export type CachedTable = "apiKeys" | "merchants" | "endpoints";

const MAX_ENTRIES = 10_000;

const copyEndpoint = (endpoint: WebhookEndpointRecord): WebhookEndpointRecord => ({
  ...endpoint,
  events: endpoint.events ? [...endpoint.events] : null,
  secrets: endpoint.secrets.map((secret) => ({ ...secret })),
});

/** A merchant copied with its nested approval threshold, so no caller shares an object with the cache. */
const copyMerchant = (merchant: MerchantRecord): MerchantRecord => ({
  ...merchant,
  payoutApproval: merchant.payoutApproval ? { ...merchant.payoutApproval } : merchant.payoutApproval,
});
const copyMatch = (match: ApiKeyMatch): ApiKeyMatch => ({ key: { ...match.key }, merchant: copyMerchant(match.merchant) });

/**
 * The committed rows of small, read-mostly tables that sit on the request path (API keys, read
 * by every authenticated request; merchants, whose settings invoices read; a scope's webhook
 * endpoints, read by every unit of work that records an event), kept in process memory.
 *
 * Only correct when this process is the only writer of the tables, which holds for PGlite on a
 * data directory (the directory is locked to one process, and every write goes through the
 * adapter): a commit that wrote a table drops what the cache holds of it, and an answer loaded
 * while such a commit happened is not kept (the version check), so no stale row survives. PGlite
 * runs one transaction at a time, so inside a transaction that did not write a table, its
 * committed rows are the rows the transaction sees.
 */
export class CommittedCache {
  private version = 0;
  private readonly keys = new Map<string, ApiKeyMatch>();
  private readonly merchants = new Map<string, MerchantRecord>();
  private readonly endpoints = new Map<string, WebhookEndpointRecord[]>();

  /** The key with this hash and its merchant; `load` reads the database on a miss. Unknown hashes are not kept. */
  async apiKey(hash: string, load: () => Promise<ApiKeyMatch | null>): Promise<ApiKeyMatch | null> {
    const hit = this.keys.get(hash);
    if (hit) return copyMatch(hit);
    const version = this.version;
    const found = await load();
    if (found && version === this.version) {
      if (this.keys.size >= MAX_ENTRIES) this.keys.clear();
      this.keys.set(hash, copyMatch(found));
    }
    return found;
  }

  /** The merchant with this id; `load` reads the database on a miss. Unknown ids are not kept. */
  async merchant(id: string, load: () => Promise<MerchantRecord | null>): Promise<MerchantRecord | null> {
    const hit = this.merchants.get(id);
    if (hit) return copyMerchant(hit);
    const version = this.version;
    const found = await load();
    if (found && version === this.version) {
      if (this.merchants.size >= MAX_ENTRIES) this.merchants.clear();
      this.merchants.set(id, copyMerchant(found));
    }
    return found;
  }

  /** The endpoints of a scope; `load` reads the database on a miss. */
  async webhookEndpoints(scope: Scope, load: () => Promise<WebhookEndpointRecord[]>): Promise<WebhookEndpointRecord[]> {
    const key = `${scope.merchantId}\u0000${scope.mode}`;
    const hit = this.endpoints.get(key);
    if (hit) return hit.map(copyEndpoint);
    const version = this.version;
    const found = await load();
    if (version === this.version) {
      if (this.endpoints.size >= MAX_ENTRIES) this.endpoints.clear();
      this.endpoints.set(key, found.map(copyEndpoint));
    }
    return found;
  }

  /** Forgets the tables a transaction wrote, once it committed (or might have). */
  invalidate(tables: ReadonlySet<CachedTable>): void {
    if (tables.size === 0) return;
    this.version++;
    // A cached key carries its merchant, so a merchant write drops the keys too.
    if (tables.has("apiKeys") || tables.has("merchants")) this.keys.clear();
    if (tables.has("merchants")) this.merchants.clear();
    if (tables.has("endpoints")) this.endpoints.clear();
  }
}

/** One cache per database and schema, shared by every adapter on them. */
const caches = shared("caches", () => new WeakMap<object, Map<string, CommittedCache>>());

export function cacheFor(database: object, schema: string | undefined): CommittedCache {
  let bySchema = caches.get(database);
  if (!bySchema) {
    bySchema = new Map();
    caches.set(database, bySchema);
  }
  const key = schema ?? "";
  let cache = bySchema.get(key);
  if (!cache) {
    cache = new CommittedCache();
    bySchema.set(key, cache);
  }
  return cache;
}
