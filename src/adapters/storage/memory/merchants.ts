import type { MerchantReads, MerchantStore } from "../../../core/ports/storage/index";
import { copy, copyMerchant } from "./copy";
import { byCreatedAt, pick } from "./query";
import { conflict, missing, pushIn, type Run, setIn, type Tables, type Undo, type Writes } from "./tables";

/** Merchants and API keys: reads. */
export function merchantReads(t: Tables, run: Run): MerchantReads {
  return {
    getMerchant: (id) => run("getMerchant", () => pick(t.merchants.get(id), copyMerchant)),
    findApiKeyByHash: (hash) =>
      run("findApiKeyByHash", () => {
        const id = t.apiKeyIdByHash.get(hash);
        const key = id === undefined ? undefined : t.apiKeys.get(id);
        const merchant = key && t.merchants.get(key.merchantId);
        return key && merchant ? { key: copy(key), merchant: copyMerchant(merchant) } : null;
      }),
    getApiKey: (id) => run("getApiKey", () => pick(t.apiKeys.get(id), copy)),
    listApiKeys: (merchantId) =>
      run("listApiKeys", () =>
        (t.apiKeyIdsByMerchant.get(merchantId) ?? [])
          .flatMap((id) => t.apiKeys.get(id) ?? [])
          .sort(byCreatedAt)
          .map(copy),
      ),
  };
}

/** Merchants and API keys: writes. */
export function merchantWrites(t: Tables, run: Run, undo: Undo[]): Writes<MerchantStore, MerchantReads> {
  return {
    insertMerchant: (merchant) =>
      run("insertMerchant", () => {
        if (t.merchants.has(merchant.id)) conflict(`merchant ${merchant.id}`);
        setIn(t.merchants, merchant.id, copyMerchant(merchant), undo);
      }),
    updateMerchant: (merchant) =>
      run("updateMerchant", () => {
        if (!t.merchants.has(merchant.id)) missing(`merchant ${merchant.id}`);
        setIn(t.merchants, merchant.id, copyMerchant(merchant), undo);
      }),
    insertApiKey: (key) =>
      run("insertApiKey", () => {
        if (t.apiKeys.has(key.id)) conflict(`API key ${key.id}`);
        if (t.apiKeyIdByHash.has(key.hash)) conflict("an API key with this hash");
        setIn(t.apiKeys, key.id, copy(key), undo);
        setIn(t.apiKeyIdByHash, key.hash, key.id, undo);
        pushIn(t.apiKeyIdsByMerchant, key.merchantId, key.id, undo);
      }),
    revokeApiKey: (id, at) =>
      run("revokeApiKey", () => {
        const key = t.apiKeys.get(id);
        if (!key || key.revokedAt !== null) return false;
        // Replace rather than mutate, so the undo can restore the old object as it was.
        setIn(t.apiKeys, id, { ...key, revokedAt: at }, undo);
        return true;
      }),
  };
}
