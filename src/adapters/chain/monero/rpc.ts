import { parse, stringify } from "lossless-json";
import { NodeError } from "../../../errors";
import { networkReason, redact, rpcSecrets } from "../../rpc-errors";

/**
 * JSON-RPC 2.0 to `monerod` and `monero-wallet-rpc` (POST /json_rpc), and monerod's "other"
 * endpoints (POST /get_transactions...), over Node's fetch.
 *
 * Answers are parsed with lossless-json, every JSON number kept as the text the server wrote:
 * amounts are piconero (10^-12 XMR) up to 2^64, beyond what a double holds exactly. Read them
 * with `BigInt(...)`, heights with `Number(...)`.
 *
 * No error shows the URL or a secret given in `secrets` (the view key, wallet passwords): a
 * wallet RPC's error messages may repeat what it was sent.
 */

/** An error object answered by the server: `code` is Monero's, `serverMessage` its words (scrubbed). */
export class MoneroRpcError extends NodeError {
  override readonly name = "MoneroRpcError";
  constructor(
    message: string,
    /** Monero's error code (wallet RPC: -13 no wallet open, -1 generic...). */
    readonly code: number,
    /** What the server said, scrubbed of secrets. */
    readonly serverMessage: string,
    /** The method called. */
    readonly method: string,
  ) {
    super(message);
  }
}

/** Wallet RPC codes the adapter acts on (wallet_rpc_server_error_codes.h). */
export const WALLET_RPC_CODES = {
  UNKNOWN_ERROR: -1,
  WRONG_ADDRESS: -2,
  NOT_OPEN: -13,
} as const;

/** A client bound to one server. */
export interface MoneroRpc {
  /** Calls `method` on /json_rpc; numbers in the result come as decimal text. */
  call<T = unknown>(method: string, params?: Record<string, unknown>): Promise<T>;
  /** POSTs `body` to monerod's endpoint `path` ("/get_transactions"). */
  other<T = unknown>(path: string, body: Record<string, unknown>): Promise<T>;
}

/** Options of `createMoneroRpc`. */
export interface MoneroRpcOptions {
  /** http(s) URL of the server (`http://127.0.0.1:18081`). */
  url: string;
  /** How messages name the server ("XMR daemon", "XMR view wallet"). */
  label: string;
  timeoutMs: number;
  /** Values no message may show besides the URL's parts (keys, passwords). */
  secrets?: readonly string[];
}

/** A client for the server at `options.url`; a URL that is not http(s) throws now, without showing it. */
export function createMoneroRpc(options: MoneroRpcOptions): MoneroRpc {
  const { label, timeoutMs } = options;
  const secrets = [...rpcSecrets(options.url), ...(options.secrets ?? []).filter((secret) => secret.length > 0)];
  let base: URL;
  try {
    base = new URL(options.url);
  } catch {
    throw new TypeError(`${label}: the URL is not valid (it is not shown here: it may hold a password)`);
  }
  if (base.protocol !== "http:" && base.protocol !== "https:") throw new TypeError(`${label}: the URL must be http:// or https://`);
  if (base.username || base.password)
    throw new TypeError(`${label}: credentials in the URL are not supported (Monero's RPC login is HTTP digest): bind the RPC to a private interface instead`);
  const fail = (message: string) => new NodeError(redact(`${label}: ${message}`, secrets));
  let nextId = 0;

  async function post(path: string, what: string, body: unknown): Promise<unknown> {
    const timeout = AbortSignal.timeout(timeoutMs);
    let response: Response;
    let text: string;
    try {
      response = await fetch(new URL(path, base), {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json" },
        // lossless-json writes a bigint as a JSON number: amounts go out exact.
        body: stringify(body) ?? "{}",
        signal: timeout,
        redirect: "manual",
      });
      text = await response.text();
    } catch (error) {
      if (timeout.aborted) throw fail(`${what} got no answer within ${timeoutMs} ms`);
      throw fail(`${what} failed: ${networkReason(error)}`);
    }
    if (response.status === 401)
      throw fail(`${what} was refused (HTTP 401): the server asks for an RPC login; run it with --disable-rpc-login on a private interface`);
    if (response.status >= 300) throw fail(`${what} answered HTTP ${response.status}`);
    try {
      return parse(text, null, (value) => value);
    } catch {
      throw fail(`${what} answered a body that is not JSON`);
    }
  }

  return {
    async call<T>(method: string, params: Record<string, unknown> = {}): Promise<T> {
      const answer = (await post("/json_rpc", method, { jsonrpc: "2.0", id: ++nextId, method, params })) as {
        result?: unknown;
        error?: { code?: unknown; message?: unknown };
      } | null;
      if (typeof answer !== "object" || answer === null) throw fail(`${method} answered JSON that is not a JSON-RPC reply`);
      if (answer.error) {
        const code = Number(answer.error.code);
        const said = redact(typeof answer.error.message === "string" ? answer.error.message : "(no message)", secrets);
        throw new MoneroRpcError(redact(`${label}: ${method} failed: ${said} (code ${code})`, secrets), code, said, method);
      }
      if (!("result" in answer)) throw fail(`${method} answered JSON that is not a JSON-RPC reply`);
      return answer.result as T;
    },
    async other<T>(path: string, body: Record<string, unknown>): Promise<T> {
      const answer = (await post(path, path.slice(1), body)) as { status?: unknown } | null;
      if (typeof answer !== "object" || answer === null) throw fail(`${path.slice(1)} answered something that is not an object`);
      if (answer.status !== undefined && answer.status !== "OK") throw fail(`${path.slice(1)} answered status ${redact(String(answer.status), secrets)}`);
      return answer as T;
    },
  };
}
