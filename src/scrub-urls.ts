/**
 * `text` with every URL replaced by "[url]": a message thrown by a node or a price source of the
 * host's own may hold its endpoint with a key or a password in it, and the places such messages
 * go (a health report read without a key, a payout's `pendingReason`, the logs) need neither.
 */
export function scrubUrls(text: string): string {
  return text.replace(/\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>]+/gi, "[url]");
}
