import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import { BlockList, isIP, type LookupFunction } from "node:net";

/**
 * Addresses a webhook must not reach from a live service: loopback, private, link-local
 * (cloud metadata lives at 169.254.169.254), carrier-grade NAT, multicast and reserved ranges.
 * A merchant who could point an endpoint there could make the service probe its own network.
 */
const BLOCKED = new BlockList();
for (const [network, prefix] of [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["224.0.0.0", 3],
] as const) {
  BLOCKED.addSubnet(network, prefix, "ipv4");
}
for (const [network, prefix] of [
  ["::", 96], // unspecified, loopback and the deprecated IPv4-compatible form (::127.0.0.1)
  ["64:ff9b::", 96], // NAT64: an IPv4 address in disguise
  ["64:ff9b:1::", 48],
  ["2002::", 16], // 6to4: likewise
  ["fc00::", 7],
  ["fe80::", 10],
  ["fec0::", 10],
  ["ff00::", 8],
] as const) {
  BLOCKED.addSubnet(network, prefix, "ipv6");
}

/** Whether an IP address is in a range a live webhook may not reach. */
export function isPrivateAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return BLOCKED.check(mapped[1]!, "ipv4");
  const family = isIP(address);
  if (family === 0) return true; // Not an address at all: refuse rather than guess.
  return BLOCKED.check(address, family === 4 ? "ipv4" : "ipv6");
}

/** Thrown when an endpoint's host is, or resolves to, a blocked address. */
export class BlockedAddressError extends Error {
  override name = "BlockedAddressError";
}

/** Checks a URL's shape: absolute http(s), no credentials. Returns the parsed URL or a reason. */
export function parseWebhookUrl(text: string): URL | string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return "must be an absolute URL";
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return "must use http or https";
  if (url.username || url.password) return "must not contain credentials";
  return url;
}

/** The host of a URL without IPv6 brackets. */
function hostOf(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, "$1");
}

/**
 * Refuses a URL whose host is or resolves to a blocked address. Used when an endpoint is
 * registered; `guardedLookup` repeats the check on every connection, because DNS can change.
 */
export async function assertPublicHost(url: URL): Promise<void> {
  const host = hostOf(url);
  if (isIP(host)) {
    if (isPrivateAddress(host)) throw new BlockedAddressError(`${host} is a private or reserved address`);
    return;
  }
  const addresses = await new Promise<LookupAddress[]>((resolve, reject) =>
    dnsLookup(host, { all: true }, (error, found) => (error ? reject(error) : resolve(found))),
  );
  const blocked = addresses.find((entry) => isPrivateAddress(entry.address));
  if (blocked) throw new BlockedAddressError(`${host} resolves to ${blocked.address}, a private or reserved address`);
}

/**
 * A `lookup` for http.request that refuses blocked addresses at connection time, so a host that
 * passed registration cannot later be re-pointed at the internal network (DNS rebinding).
 */
export const guardedLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, "", 0);
    const blocked = addresses.find((entry) => isPrivateAddress(entry.address));
    if (blocked) return callback(new BlockedAddressError(`${hostname} resolves to ${blocked.address}, a private or reserved address`), "", 0);
    if (options.all) return (callback as unknown as (error: null, addresses: LookupAddress[]) => void)(null, addresses);
    const first = addresses[0]!;
    callback(null, first.address, first.family);
  });
};

/** Whether the URL's host is an IP literal in a blocked range (lookup is not called for those). */
export function isBlockedLiteral(url: URL): boolean {
  const host = hostOf(url);
  return isIP(host) !== 0 && isPrivateAddress(host);
}
