import { lookup as dnsLookup } from "node:dns/promises";
import { BlockList, isIP, type LookupFunction } from "node:net";

/**
 * Addresses a webhook must not reach, in test and live mode alike: loopback, private, link-local
 * (cloud metadata lives at 169.254.169.254), carrier-grade NAT, multicast, documentation,
 * benchmarking and reserved ranges, and the IPv6 forms that tunnel to an IPv4 address we cannot
 * see. A merchant who could point an endpoint there could make the service probe the network it
 * runs in (SSRF), and a test key is as easy to get as a live one.
 */
const BLOCKED = new BlockList();
for (const [network, prefix] of [
  ["0.0.0.0", 8], // "this network": 0.0.0.0 reaches the local host on Linux
  ["10.0.0.0", 8],
  ["100.64.0.0", 10], // carrier-grade NAT
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.0.0.0", 24], // IETF protocol assignments
  ["192.0.2.0", 24], // documentation (TEST-NET-1)
  ["192.88.99.0", 24], // retired 6to4 relays
  ["192.168.0.0", 16],
  ["198.18.0.0", 15], // benchmarking
  ["198.51.100.0", 24], // documentation (TEST-NET-2)
  ["203.0.113.0", 24], // documentation (TEST-NET-3)
  ["224.0.0.0", 4], // multicast
  ["240.0.0.0", 4], // reserved, and the broadcast address 255.255.255.255
] as const) {
  BLOCKED.addSubnet(network, prefix, "ipv4");
}
for (const [network, prefix] of [
  ["::", 96], // unspecified, loopback and the deprecated IPv4-compatible form (::127.0.0.1)
  ["::ffff:0:0:0", 96], // IPv4-translated (::ffff:0:127.0.0.1): a translator we cannot see picks the IPv4 host
  ["64:ff9b::", 96], // NAT64: an IPv4 address in disguise
  ["64:ff9b:1::", 48],
  ["100::", 64], // discard-only
  // IETF protocol assignments, as 192.0.0.0/24: Teredo (2001::/32, which tunnels to an IPv4
  // address), anycast services, benchmarking (2001:2::/48), ORCHID; no webhook receiver.
  ["2001::", 23],
  ["2001:db8::", 32], // documentation
  ["2002::", 16], // 6to4: an IPv4 address in disguise
  ["3fff::", 20], // documentation
  ["5f00::", 16], // segment routing
  ["fc00::", 7], // unique local
  ["fe80::", 10],
  ["fec0::", 10], // deprecated site-local
  ["ff00::", 8], // multicast
] as const) {
  BLOCKED.addSubnet(network, prefix, "ipv6");
}

/**
 * Whether an IP address is in a range a webhook may not reach. IPv4-mapped IPv6 addresses
 * (::ffff:127.0.0.1, which the URL parser writes ::ffff:7f00:1) are the IPv4 address itself to
 * the kernel, so they are judged by it: BlockList checks them against the IPv4 ranges. Every
 * other IPv6 form that carries an IPv4 address is refused whole (the ranges above), except an
 * ISATAP interface id, which may follow any prefix and is judged by the IPv4 address it embeds.
 * An address with a zone (fe80::1%eth0, from a resolver) is refused: a zone belongs to a local
 * link, and BlockList finds no rule for a long zoned address its parser cannot read.
 */
export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0 || address.includes("%")) return true; // Not a plain address: refuse rather than guess.
  if (family === 4) return BLOCKED.check(address, "ipv4");
  if (BLOCKED.check(address, "ipv6")) return true;
  const isatap = isatapIPv4(address);
  return isatap !== null && BLOCKED.check(isatap, "ipv4");
}

/**
 * The IPv4 address in an ISATAP interface id (`…:0:5efe:a.b.c.d`, or `200:5efe` for a global
 * IPv4 address, with the group bit either way), or null. A host on an ISATAP link sends such
 * an address straight to that IPv4 address in its own network, whatever the prefix.
 */
function isatapIPv4(address: string): string | null {
  const groups = ipv6Groups(address);
  if (!groups || (groups[4]! & 0xfcff) !== 0 || groups[5] !== 0x5efe) return null;
  return [groups[6]! >> 8, groups[6]! & 0xff, groups[7]! >> 8, groups[7]! & 0xff].join(".");
}

/**
 * The eight 16-bit groups of an IPv6 address that `isIP` accepted (any case, leading zeros,
 * `::` anywhere, a dotted IPv4 tail), or null if it is not one (a zone included). Exported for
 * the fuzz test, which checks it against Node's own parser.
 */
export function ipv6Groups(address: string): number[] | null {
  if (isIP(address) !== 6 || address.includes("%")) return null;
  let text = address;
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail, ...rest] = text.split("::");
  if (rest.length > 0) return null;
  const parse = (part: string | undefined) => (part ? part.split(":").map((group) => Number.parseInt(group, 16)) : []);
  const before = parse(head);
  const after = parse(tail);
  const groups = tail === undefined ? before : [...before, ...Array<number>(8 - before.length - after.length).fill(0), ...after];
  return groups.length === 8 && groups.every((group) => group >= 0 && group <= 0xffff) ? groups : null;
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

/** One address a host name resolves to. */
export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/**
 * Resolves a host name to every address it has, or rejects (a name that does not exist, a
 * resolver that fails). The default is the system resolver (`dns.lookup`, as `http` uses).
 */
export type HostLookup = (hostname: string) => Promise<ResolvedAddress[]>;

/** The `webhooks` options of `createPaymentRouter` that decide where webhooks may go. */
export interface WebhookAddressOptions {
  /**
   * Let endpoints be, or resolve to, loopback, private or reserved addresses (receivers on
   * 127.0.0.1 in development, an internal network). Default false, in test and live mode alike.
   */
  allowPrivateUrls?: boolean;
  /**
   * How endpoint host names are resolved, at registration and before every delivery (your own
   * resolver, or a fixed answer in tests). What it answers is what is checked, and the
   * connection goes to one of those addresses only. Default: the system resolver.
   */
  lookup?: HostLookup;
}

const systemLookup: HostLookup = async (hostname) =>
  (await dnsLookup(hostname, { all: true })).map((entry) => ({ address: entry.address, family: entry.family === 6 ? 6 : 4 }));

/** Where one delivery may connect: its host's addresses, and whether they passed the check. */
export interface WebhookTarget {
  addresses: ResolvedAddress[];
  /** False when the host allowed private addresses: its connections must not be pooled with checked ones. */
  checked: boolean;
}

/**
 * Resolves a URL's host once and checks every address it has, unless private ones are allowed.
 * Throws a BlockedAddressError when one is blocked; the message names the host only, never the
 * address, so a merchant cannot use the answers to map the service's network. Other failures
 * (the name does not resolve) are the lookup's own errors.
 */
export async function resolveWebhookTarget(url: URL, options: WebhookAddressOptions): Promise<WebhookTarget> {
  const host = hostOf(url);
  const checked = options.allowPrivateUrls !== true;
  const family = isIP(host);
  if (family !== 0) {
    if (checked && isPrivateAddress(host)) throw new BlockedAddressError(`${host} is a private or reserved address`);
    return { addresses: [{ address: host, family: family === 6 ? 6 : 4 }], checked };
  }
  const addresses = await (options.lookup ?? systemLookup)(host);
  if (addresses.length === 0) throw new Error(`${host} did not resolve to any address`);
  // Every address, not just the first: a connection may go to any of them.
  if (checked && addresses.some((entry) => isPrivateAddress(entry.address))) {
    throw new BlockedAddressError(`${host} resolves to a private or reserved address`);
  }
  return { addresses, checked };
}

/**
 * A `lookup` for http.request that answers with the target's addresses and nothing else: the
 * connection goes to an address that was checked, never to a second resolution that could
 * answer otherwise (DNS rebinding). With all of them, Node can still try IPv6 and IPv4 in turn.
 */
export function pinnedLookup(target: WebhookTarget): LookupFunction {
  return (hostname, options, callback) => {
    const family = options.family === 4 || options.family === "IPv4" ? 4 : options.family === 6 || options.family === "IPv6" ? 6 : 0;
    const wanted = family === 0 ? target.addresses : target.addresses.filter((entry) => entry.family === family);
    const first = wanted[0];
    if (!first) return callback(Object.assign(new Error(`${hostname} has no IPv${family} address`), { code: "ENOTFOUND" }), "", 0);
    if (options.all) return (callback as unknown as (error: null, addresses: ResolvedAddress[]) => void)(null, wanted);
    callback(null, first.address, first.family);
  };
}

/**
 * Whether webhooks may be registered to go to `text`: the parsed URL, or why not. Only a
 * blocked address refuses it: a name that does not resolve (yet: DNS may still be being set up)
 * is accepted, since every delivery resolves and checks it again.
 */
export async function screenWebhookUrl(text: string, options: WebhookAddressOptions): Promise<URL | string> {
  const url = parseWebhookUrl(text);
  if (typeof url === "string" || options.allowPrivateUrls) return url;
  try {
    await resolveWebhookTarget(url, options);
  } catch (error) {
    if (error instanceof BlockedAddressError) {
      return `webhooks must reach a public address; ${error.message}. For a receiver on this machine or a private network, create the router with webhooks: { allowPrivateUrls: true } (or, in the same app, handle events with on: instead of an endpoint)`;
    }
  }
  return url;
}
