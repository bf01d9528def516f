import { parse } from "lossless-json";
import { parseDecimal } from "../../../money";
import { networkReason, nodeError, redact, rpcSecrets } from "../../rpc-errors";

/**
 * JSON-RPC to a Bitcoin Core-family node (bitcoind, litecoind) over Node's fetch: the Bitcoin
 * adapter's only way to the node. It reads blocks, the mempool and transactions and broadcasts;
 * it needs no wallet.
 *
 * Answers are parsed with lossless-json, every JSON number kept as the text the node wrote:
 * Bitcoin Core writes amounts as JSON numbers with 8 decimals ("value": 0.12345678), which
 * `JSON.parse` would turn into doubles. So `getblockcount` answers "101" and a vout's `value`
 * "0.12345678": read integers with `Number(...)`, amounts with `toSatoshis(...)`.
 *
 * Output shapes of Litecoin Core 0.21 (checked against 0.21.2.1 in regtest), for `getblock <hash> 2`:
 *   vout: [{ "ismweb": false, "value": 0.12345678, "n": 1,
 *            "scriptPubKey": { "asm": "0 2084...", "hex": "00142084...", "reqSigs": 1,
 *                              "type": "witness_v0_keyhash", "addresses": ["rltc1q..."] } }]
 * i.e. `scriptPubKey.addresses[]` (and `reqSigs`); Bitcoin Core 22+ gives `scriptPubKey.address`
 * (one string) instead, and nulldata outputs have neither. `value` is always written with 8
 * decimals ("0.00000000" for an OP_RETURN). Match outputs by `scriptPubKey.hex`, which every
 * version gives. `ismweb` is Litecoin's (MWEB) and absent from Bitcoin Core.
 */

/** Bitcoin Core's RPC error codes that callers act on (src/rpc/protocol.h). */
export const BITCOIN_RPC_CODES = {
  /** Unknown method (HTTP 404 with a JSON body). */
  METHOD_NOT_FOUND: -32601,
  /** "No such mempool or blockchain transaction", an unknown block hash, a bad address. */
  INVALID_ADDRESS_OR_KEY: -5,
  /** Out of range, e.g. "Block height out of range" from getblockhash. */
  INVALID_PARAMETER: -8,
  /** "TX decode failed". */
  DESERIALIZATION_ERROR: -22,
  /**
   * sendrawtransaction: general verification error. On 0.21, -25 "bad-txns-inputs-missingorspent"
   * answers both a transaction whose inputs a mined conflict spent AND a transaction that was
   * mined itself and whose outputs have all been spent since: after a broadcast of ours, -25
   * means "look the transaction up in the blocks", not "it failed".
   */
  VERIFY_ERROR: -25,
  /**
   * sendrawtransaction: refused by mempool policy or consensus, e.g. -26 "txn-mempool-conflict"
   * (a non-RBF double-spend of a waiting transaction), "min relay fee not met".
   */
  VERIFY_REJECTED: -26,
  /**
   * sendrawtransaction: "Transaction already in block chain", for a mined transaction of which
   * some output is still unspent (checked on 0.21; see VERIFY_ERROR for the fully spent case).
   * Treat as "look it up".
   * Re-broadcasting one that waits in the mempool is no error on 0.21: the answer is its txid
   * (only `testmempoolaccept` says "txn-already-in-mempool"); newer versions may answer -26/-27
   * "txn-already-known"/"txn-already-in-mempool" for a same-txid, other-witness transaction.
   */
  VERIFY_ALREADY_IN_CHAIN: -27,
  /** The node is starting ("Loading block index...", "Verifying blocks..."). */
  IN_WARMUP: -28,
} as const;

/** One call of a batch. */
export interface BitcoinRpcCall {
  method: string;
  params?: readonly unknown[];
}

/** One answer of `batchSettled`, in the order of the calls. */
export type BitcoinRpcOutcome<T> = { ok: true; result: T } | { ok: false; error: BitcoinRpcError };

/** Options of `createBitcoinRpc`. */
export interface BitcoinRpcOptions {
  /**
   * The node's RPC URL, http or https, with the RPC user and password in it
   * (`http://user:pass@127.0.0.1:8332`, percent-encoded where needed); a `/wallet/<name>` path
   * is kept. The credentials travel in an Authorization header, never in the URL sent, and no
   * error shows them or the URL.
   */
  url: string;
  /** How long one request (a call or a whole batch) may take. Default 30 000 ms. */
  timeoutMs?: number;
  /** How messages name the node ("litecoin node"). Default "Bitcoin RPC". */
  label?: string;
}

/** A JSON-RPC client bound to one node. */
export interface BitcoinRpc {
  /**
   * Calls `method` and returns its result, numbers as decimal text (see the module comment).
   * Throws `BitcoinRpcError` when the node answers an error object; a plain `Error` (no URL, no
   * credentials) when it cannot be reached, times out, refuses the credentials or answers
   * something that is not JSON-RPC.
   */
  call<T = unknown>(method: string, params?: readonly unknown[], options?: { signal?: AbortSignal }): Promise<T>;
  /**
   * Sends `calls` in one HTTP request (Bitcoin Core answers a JSON array) and returns their
   * results in the order of `calls`; throws the first call's `BitcoinRpcError` in that order
   * if any failed. An empty list sends nothing.
   */
  batch<T = unknown>(calls: readonly BitcoinRpcCall[], options?: { signal?: AbortSignal }): Promise<T[]>;
  /** `batch` that returns each call's result or error instead of throwing the first error. */
  batchSettled<T = unknown>(calls: readonly BitcoinRpcCall[], options?: { signal?: AbortSignal }): Promise<Array<BitcoinRpcOutcome<T>>>;
}

/**
 * An error object answered by the node: `code` is Bitcoin Core's (see `BITCOIN_RPC_CODES`),
 * `nodeMessage` the node's own words ("Transaction already in block chain"), safe to show.
 */
export class BitcoinRpcError extends Error {
  override name = "BitcoinRpcError";
  constructor(
    message: string,
    /** Bitcoin Core's RPC error code (negative). */
    readonly code: number,
    /** What the node said. */
    readonly nodeMessage: string,
    /** The method called. */
    readonly method: string,
  ) {
    super(message);
  }
}

/** An amount as the node writes it ("0.12345678", "-0.0000141") in satoshis, exactly. */
export function toSatoshis(amount: string): bigint {
  return parseDecimal(amount, 8);
}

interface RpcReply {
  result?: unknown;
  error?: { code?: unknown; message?: unknown } | null;
  id?: unknown;
}

/**
 * A client for the node at `options.url`. The options are checked here: a URL that does not
 * parse, is not http(s), or a bad timeout throws now, without showing the URL.
 */
export function createBitcoinRpc(options: BitcoinRpcOptions): BitcoinRpc {
  const label = options.label ?? "Bitcoin RPC";
  if (typeof label !== "string" || !label) throw new TypeError("createBitcoinRpc: label must be a non-empty string");
  const timeoutMs = options.timeoutMs ?? 30_000;
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) throw new TypeError(`${label}: timeoutMs must be a positive number of milliseconds`);
  if (typeof options.url !== "string") throw new TypeError(`${label}: url must be a string`);
  const secrets = rpcSecrets(options.url);
  let target: URL;
  try {
    target = new URL(options.url);
  } catch {
    throw new TypeError(`${label}: url is not a valid URL (it is not shown here: it may hold the RPC password)`);
  }
  if (target.protocol !== "http:" && target.protocol !== "https:") throw new TypeError(`${label}: url must be http:// or https://, got ${target.protocol}//`);
  const headers: Record<string, string> = { "content-type": "application/json", accept: "application/json" };
  if (target.username || target.password) {
    let user: string;
    let password: string;
    try {
      user = decodeURIComponent(target.username);
      password = decodeURIComponent(target.password);
    } catch {
      throw new TypeError(`${label}: the user or password in url has a malformed %-escape`);
    }
    headers.authorization = `Basic ${Buffer.from(`${user}:${password}`).toString("base64")}`;
    secrets.push(Buffer.from(`${user}:${password}`).toString("base64"));
    target.username = "";
    target.password = "";
  }
  const endpoint = target.href;
  const fail = (message: string) => nodeError(new Error(message), { label, secrets });
  const rpcError = (method: string, error: NonNullable<RpcReply["error"]>) => {
    const code = typeof error.code === "number" ? error.code : Number(error.code);
    const said = typeof error.message === "string" ? redact(error.message, secrets) : "(no message)";
    return new BitcoinRpcError(redact(`${label}: ${method} failed: ${said} (code ${code})`, secrets), code, said, method);
  };
  let nextId = 0;

  /** POSTs `body` and returns the parsed JSON answer, or throws why there is none. */
  async function post(what: string, body: unknown, signal: AbortSignal | undefined): Promise<unknown> {
    if (signal?.aborted) throw fail(`${what} was not sent: aborted`);
    const timeout = AbortSignal.timeout(timeoutMs);
    const combined = signal ? AbortSignal.any([signal, timeout]) : timeout;
    let response: Response;
    let text: string;
    try {
      // Redirects are not followed: a node does not redirect, and fetch would resend the
      // Authorization header to wherever the Location points.
      response = await fetch(endpoint, { method: "POST", headers, body: JSON.stringify(body), signal: combined, redirect: "manual" });
      text = await response.text();
    } catch (error) {
      if (combined.aborted) {
        if (combined.reason === timeout.reason) throw fail(`${what} got no answer within ${timeoutMs} ms (timeoutMs)`);
        throw fail(`${what} was aborted`);
      }
      throw fail(`${what} failed: ${networkReason(error)}`);
    }
    const status = `HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ""}`;
    if (response.status === 401) {
      throw fail(
        `the node refused the RPC credentials (${status}): check the user and password in the URL (rpcuser/rpcpassword or rpcauth in the node's config)`,
      );
    }
    if (response.status === 403) {
      throw fail(`the node refused this client's address (${status}): allow it with rpcallowip in the node's config`);
    }
    if (response.status >= 300 && response.status < 400) {
      throw fail(`${what} answered ${status}, a redirect, which is not followed: check the URL`);
    }
    // Bitcoin Core answers RPC errors with HTTP 500 (404 for an unknown method) and a JSON-RPC
    // body: the body decides, whatever the status.
    let parsed: unknown;
    try {
      parsed = parse(text, null, (value) => value);
    } catch {
      const start = text.replace(/\s+/g, " ").trim().slice(0, 120);
      throw fail(`${what} answered ${status} with a body that is not JSON${start ? `: ${JSON.stringify(start)}` : " (empty)"}`);
    }
    return parsed;
  }

  function reply(what: string, value: unknown): RpcReply {
    if (typeof value !== "object" || value === null || Array.isArray(value) || !("result" in value || "error" in value)) {
      throw fail(`${what} answered JSON that is not a JSON-RPC reply`);
    }
    return value as RpcReply;
  }

  async function settled<T>(calls: readonly BitcoinRpcCall[], signal: AbortSignal | undefined): Promise<Array<BitcoinRpcOutcome<T>>> {
    if (calls.length === 0) return [];
    const ids = calls.map(() => ++nextId);
    const what = `a batch of ${calls.length} (${summarise(calls)})`;
    const body = calls.map((call, index) => ({ jsonrpc: "1.0", id: ids[index], method: call.method, params: call.params ?? [] }));
    const answer = await post(what, body, signal);
    if (!Array.isArray(answer)) {
      // A node that cannot read the batch answers one error object for all of it.
      const single = reply(what, answer);
      if (single.error) throw rpcError(what, single.error);
      throw fail(`${what} answered a single reply instead of a list`);
    }
    // Bitcoin Core's ids come back as they were sent, numbers as text here: match by id.
    const byId = new Map<string, RpcReply>();
    for (const item of answer) {
      const entry = reply(what, item);
      byId.set(String(entry.id), entry);
    }
    return calls.map((call, index) => {
      const entry = byId.get(String(ids[index]));
      if (!entry) throw fail(`${what} answered no reply for ${call.method} (id ${ids[index]})`);
      if (entry.error) return { ok: false, error: rpcError(call.method, entry.error) };
      return { ok: true, result: entry.result as T };
    });
  }

  return {
    async call<T>(method: string, params: readonly unknown[] = [], callOptions: { signal?: AbortSignal } = {}): Promise<T> {
      const entry = reply(method, await post(method, { jsonrpc: "1.0", id: ++nextId, method, params }, callOptions.signal));
      if (entry.error) throw rpcError(method, entry.error);
      return entry.result as T;
    },
    async batch<T>(calls: readonly BitcoinRpcCall[], callOptions: { signal?: AbortSignal } = {}): Promise<T[]> {
      const outcomes = await settled<T>(calls, callOptions.signal);
      return outcomes.map((outcome) => {
        if (!outcome.ok) throw outcome.error;
        return outcome.result;
      });
    },
    batchSettled: (calls, callOptions = {}) => settled(calls, callOptions.signal),
  };
}

/** "getblockhash x3, getblock" for a message. */
function summarise(calls: readonly BitcoinRpcCall[]): string {
  const counts = new Map<string, number>();
  for (const call of calls) counts.set(call.method, (counts.get(call.method) ?? 0) + 1);
  return [...counts].map(([method, count]) => (count > 1 ? `${method} x${count}` : method)).join(", ");
}
