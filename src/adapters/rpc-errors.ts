import { NodeError } from "../errors";
/**
 * Errors from an EVM node, made safe to log and to throw. An RPC URL may carry a password, an
 * API key in its path or query; viem puts the URL in its error messages and fields (`url`,
 * `cause`), and a hot wallet key must never travel with an error either. So errors leaving
 * the EVM adapter are rebuilt from their short reason, scrubbed, and carry no `cause`.
 */

const REDACTED = "[redacted]";

/**
 * The strings of `rpcUrl` that must not appear in a message: the whole URL (as given and as
 * parsed), its username and password (raw and decoded), its path when it is more than "/"
 * (providers put API keys there) and its query.
 */
export function rpcSecrets(rpcUrl: string): string[] {
  const secrets = new Set<string>([rpcUrl]);
  let url: URL;
  try {
    url = new URL(rpcUrl);
  } catch {
    // Unparseable: the whole string is all we can name.
    return [...secrets];
  }
  secrets.add(url.href);
  for (const part of [url.username, url.password]) {
    if (!part) continue;
    secrets.add(part);
    secrets.add(safeDecode(part));
  }
  if (url.pathname.length > 1) {
    secrets.add(url.pathname);
    secrets.add(safeDecode(url.pathname));
  }
  if (url.search.length > 1) {
    secrets.add(url.search);
    secrets.add(url.search.slice(1));
    secrets.add(safeDecode(url.search));
  }
  return [...secrets].filter((secret) => secret.length > 0);
}

export { NodeError };

/**
 * A fresh `NodeError` for `error` (typically a viem error) whose message is `${label}: ${short reason}`
 * with every occurrence of each of `secrets` replaced by "[redacted]". The reason is viem's
 * `shortMessage` with its `details` (what the node said) when present, else the message. No
 * `cause` is attached: viem errors carry the URL in their fields.
 *
 * A `NodeError` is returned as it is: it was scrubbed when it was made, and labelling it again
 * would only repeat its label. (Every maker of one in this package scrubs with the same
 * secrets its callers would: those of the one RPC URL and hot wallet of its adapter.)
 */
export function nodeError(error: unknown, context: { label: string; secrets: readonly string[] }): NodeError {
  if (error instanceof NodeError) return error;
  return new NodeError(redact(`${context.label}: ${reason(error)}`, context.secrets));
}

/** `text` with every occurrence of each secret replaced, longest first (a URL before its parts). */
export function redact(text: string, secrets: readonly string[]): string {
  const ordered = [...new Set(secrets)].filter((secret) => secret.length > 0).sort((a, b) => b.length - a.length);
  let result = text;
  for (const secret of ordered) result = result.split(secret).join(REDACTED);
  return result;
}

/** The one-line reason of an error: viem's short message and details, or the message. */
function reason(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const { shortMessage, details } = error as { shortMessage?: unknown; details?: unknown };
  if (typeof shortMessage === "string" && shortMessage) {
    const short = shortMessage.replace(/\.$/, "");
    return typeof details === "string" && details && !short.includes(details) ? `${short}: ${details}` : short;
  }
  return error.message.split("\n")[0] ?? error.name;
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** Node's fetch says "fetch failed" and keeps the reason (ECONNREFUSED, ENOTFOUND) in `cause`. */
export function networkReason(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = (error as { cause?: unknown }).cause;
  if (cause instanceof Error) {
    const code = (cause as { code?: unknown }).code;
    return typeof code === "string" ? `${error.message} (${code})` : `${error.message} (${cause.message})`;
  }
  return error.message;
}
