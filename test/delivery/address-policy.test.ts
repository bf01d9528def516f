import { BlockList } from "node:net";
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { createPaymentRouter, memoryStorage } from "../../src/index";
import type { StorageTransaction } from "../../src/storage";
import { generateWebhookSecret } from "../../src/webhook-secret";
import { ipv6Groups, isPrivateAddress } from "../../src/delivery/url-guard";
import { expectErrorObject, type Harness } from "../helpers";
import { closeDeliveryTests, createEndpoint, drain, getDelivery, harness, startReceiver } from "./receiver";

/**
 * Where webhooks may go (SSRF): in test and live mode alike, an endpoint that is or resolves to
 * a private, loopback or reserved address is refused when it is registered and again before
 * every delivery, unless the host opted in with `webhooks: { allowPrivateUrls: true }`.
 * Resolution is injected through the router's `webhooks.lookup` option, so a test decides what
 * a name resolves to, and when that changes.
 */

afterEach(closeDeliveryTests);

const ENDPOINTS = "/v1/webhook-endpoints";
const MODES = ["test", "live"] as const;
type Mode = (typeof MODES)[number];

/** What the injected resolver answers, by name; tests change it to model DNS changing. */
type Zone = Record<string, string[]>;

/** A `webhooks.lookup` that answers from `zone`, and rejects like the system resolver for other names. */
function zoneLookup(zone: Zone, calls: string[] = []) {
  return async (hostname: string) => {
    calls.push(hostname);
    const addresses = zone[hostname];
    if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: "ENOTFOUND" });
    return addresses.map((address) => ({ address, family: address.includes(":") ? (6 as const) : (4 as const) }));
  };
}

/** The names the table uses, and what they resolve to. */
const ZONE: Zone = {
  "internal.test": ["10.0.0.5"],
  "metadata.test": ["169.254.169.254"],
  "loopback6.test": ["::1"],
  "mapped.test": ["::ffff:127.0.0.1"],
  "ula.test": ["fd12:3456::1"],
  "translated.test": ["0:0:0:0:FFFF:0:7F00:0001"],
  "scoped.test": ["fe80::1%eth0"],
  // BlockList cannot read this one (it finds no rule for it): a zone is refused outright.
  "scoped-long.test": ["0000:0000:0000:0000:0000:ffff:10.100.100.100%eth0"],
  "mixed.test": ["93.184.215.14", "10.0.0.1"],
  "public.test": ["93.184.215.14", "2606:2800:21f:cb07:6820:80da:af6b:8b2c"],
};

/** Every range and every way of writing an address there, with what it is. */
const BLOCKED: Array<[string, string]> = [
  ["IPv4 loopback", "http://127.0.0.1/hook"],
  ["loopback, not 127.0.0.1", "http://127.255.255.254:8080/hook"],
  ["loopback written in decimal", "http://2130706433/hook"],
  ["loopback written in octal", "http://0177.0.0.1/hook"],
  ["loopback written in hex parts", "http://0x7f.1/hook"],
  ["loopback written in hex", "http://0x7f000001/hook"],
  ["loopback written short", "http://127.1/hook"],
  ["loopback with a trailing dot", "http://127.0.0.1./hook"],
  ["'this network'", "http://0.0.0.0/hook"],
  ["'this network' written 0", "http://0/hook"],
  ["'this network' written in hex", "http://0x0/hook"],
  ["loopback written in octal as one number", "http://017700000001/hook"],
  ["loopback written in hex parts, all four", "http://0x7f.0x0.0x0.0x1/hook"],
  ["loopback written with zero-padded parts", "http://127.000.000.001/hook"],
  ["loopback written in full-width digits", "http://\uff11\uff12\uff17.\uff10.\uff10.\uff11/hook"],
  ["loopback written percent-encoded", "http://%31%32%37.0.0.1/hook"],
  ["10/8", "http://10.1.2.3/hook"],
  ["172.16/12", "http://172.31.255.1/hook"],
  ["192.168/16", "http://192.168.1.10/hook"],
  ["link-local (cloud metadata)", "http://169.254.169.254/latest/meta-data"],
  ["carrier-grade NAT", "http://100.64.0.1/hook"],
  ["IETF protocol assignments", "http://192.0.0.8/hook"],
  ["documentation TEST-NET-1", "http://192.0.2.1/hook"],
  ["documentation TEST-NET-2", "http://198.51.100.7/hook"],
  ["documentation TEST-NET-3", "http://203.0.113.9/hook"],
  ["benchmarking", "http://198.19.255.1/hook"],
  ["multicast", "http://239.255.255.250/hook"],
  ["reserved 240/4", "http://240.0.0.1/hook"],
  ["broadcast", "http://255.255.255.255/hook"],
  ["broadcast written in decimal", "http://4294967295/hook"],
  ["IPv6 loopback", "http://[::1]/hook"],
  ["IPv6 unspecified", "http://[::]/hook"],
  ["IPv6 unspecified, uncompressed", "http://[0:0:0:0:0:0:0:0]/hook"],
  ["IPv6 loopback, zero-padded", "http://[0000::0001]/hook"],
  ["IPv4-mapped loopback", "http://[::ffff:127.0.0.1]/hook"],
  ["IPv4-mapped, written in hex", "http://[0:0:0:0:0:ffff:a9fe:a9fe]/hook"],
  ["IPv4-mapped, uncompressed, zero-padded, upper case", "http://[0000:0000:0000:0000:0000:FFFF:7F00:0001]/hook"],
  ["IPv4-mapped, uncompressed with a dotted tail", "http://[0:0:0:0:0:ffff:10.0.0.1]/hook"],
  ["IPv4-compatible loopback", "http://[::127.0.0.1]/hook"],
  ["IPv4-compatible, uncompressed in hex", "http://[0:0:0:0:0:0:a9fe:a9fe]/hook"],
  ["IPv4-compatible of a public address", "http://[::93.184.215.14]/hook"],
  ["IPv4-translated loopback", "http://[::ffff:0:127.0.0.1]/hook"],
  ["IPv4-translated, in hex", "http://[::ffff:0:7f00:1]/hook"],
  ["IPv4-translated, uncompressed, zero-padded, upper case", "http://[0000:0000:0000:0000:FFFF:0000:7F00:0001]/hook"],
  ["IPv4-translated, partly compressed with a dotted tail", "http://[0::FFFF:0:169.254.169.254]/hook"],
  ["IPv4-translated of a public address", "http://[::ffff:0:93.184.215.14]/hook"],
  ["NAT64 of loopback", "http://[64:ff9b::7f00:1]/hook"],
  ["NAT64 with a dotted tail", "http://[64:ff9b::127.0.0.1]/hook"],
  ["NAT64, uncompressed, zero-padded, upper case", "http://[0064:FF9B:0000:0000:0000:0000:A9FE:A9FE]/hook"],
  ["NAT64 of a public address", "http://[64:ff9b::93.184.215.14]/hook"],
  ["local-use NAT64", "http://[64:ff9b:1:2::10.0.0.1]/hook"],
  ["6to4 of loopback", "http://[2002:7f00:1::1]/hook"],
  ["6to4, uncompressed, upper case", "http://[2002:A9FE:A9FE:0:0:0:0:1]/hook"],
  ["6to4 of a public address", "http://[2002:5db8:d70e::1]/hook"],
  ["Teredo", "http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/hook"],
  ["Teredo, compressed, upper case", "http://[2001::4136:E378:8000:63BF:3FFF:FDD2]/hook"],
  ["ISATAP interface id of a private address", "http://[2606:2800:21f:cb07:0:5efe:10.0.0.1]/hook"],
  ["ISATAP interface id (global bit) of loopback, in hex", "http://[2606:2800:21f:cb07:200:5EFE:7F00:1]/hook"],
  ["IPv6 documentation", "http://[2001:db8::1]/hook"],
  ["IPv6 benchmarking", "http://[2001:2::1]/hook"],
  ["IETF protocol assignment (PCP anycast)", "http://[2001:1::1]/hook"],
  ["IETF protocol assignment (ORCHIDv2)", "http://[2001:20::1]/hook"],
  ["IPv6 unique local", "http://[fd00::1]/hook"],
  ["IPv6 link-local", "http://[fe80::1]/hook"],
  ["IPv6 multicast", "http://[ff02::1]/hook"],
  ["a name that resolves to 10/8", "http://internal.test/hook"],
  ["a name that resolves to link-local", "https://metadata.test/hook"],
  ["a name that resolves to IPv6 loopback", "http://loopback6.test:8080/hook"],
  ["a name that resolves to an IPv4-mapped loopback", "http://mapped.test/hook"],
  ["a name that resolves to IPv6 unique local", "http://ula.test/hook"],
  ["a name that resolves to an IPv4-translated loopback, spelt long", "http://translated.test/hook"],
  ["a name that resolves to a scoped link-local address", "http://scoped.test/hook"],
  ["a name that resolves to a long scoped IPv4-mapped address", "http://scoped-long.test/hook"],
  ["a name with one private address among public ones", "https://mixed.test/hook"],
];

/** A router whose resolver answers from ZONE, with the default address policy unless `allowPrivateUrls`. */
function router(allowPrivateUrls: boolean, zone: Zone = ZONE, extra: Record<string, unknown> = {}) {
  return harness({ webhooks: { allowPrivateUrls, lookup: zoneLookup(zone), retrySchedule: [5, 5], ...extra } });
}

const keyOf = (h: Harness, mode: Mode) => (mode === "test" ? h.testKey : h.liveKey);

/** An endpoint written straight to storage, as if registered before the policy (or DNS) changed. */
async function insertEndpoint(h: Harness, mode: Mode, url: string): Promise<string> {
  const id = `we_direct_${Math.random().toString(36).slice(2)}`;
  const now = h.clock.ms;
  await h.router.storage.transaction((tx: StorageTransaction) =>
    tx.insertWebhookEndpoint({
      id,
      merchantId: h.merchant.id,
      mode,
      url,
      events: null,
      secrets: [{ secret: generateWebhookSecret(), createdAt: now, expiresAt: null }],
      status: "enabled",
      disabledReason: null,
      createdAt: now,
      updatedAt: now,
    }),
  );
  return id;
}

/** Queues a test event to an endpoint and returns the delivery id. */
async function queueTestEvent(h: Harness, mode: Mode, endpointId: string): Promise<string> {
  const res = await h.post(`${ENDPOINTS}/${endpointId}/test`, undefined, keyOf(h, mode));
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.id as string;
}

describe("registering an endpoint", () => {
  describe.each(MODES)("in %s mode", (mode) => {
    it.each(BLOCKED)("refuses %s (%s) with 400 and the error object", async (_what, url) => {
      const h = await router(false);
      const res = await h.post(ENDPOINTS, { url }, keyOf(h, mode));
      expectErrorObject(res, 400, 40001);
      expect(res.body.message).toMatch(/^Invalid request: url: webhooks must reach a public address; .+ (is|resolves to) a private or reserved address\. /);
      // The refusal names the option that allows it.
      expect(res.body.message).toContain("webhooks: { allowPrivateUrls: true }");
      expect(await h.router.storage.listWebhookEndpoints({ merchantId: h.merchant.id, mode })).toEqual([]);
    });

    it.each(BLOCKED)("accepts %s (%s) when the host allows private URLs", async (_what, url) => {
      const h = await router(true);
      const res = await h.post(ENDPOINTS, { url }, keyOf(h, mode));
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.livemode).toBe(mode === "live");
    });

    it("refuses localhost as the system resolver answers it", async () => {
      const h = await harness({ webhooks: { allowPrivateUrls: false } });
      const res = await h.post(ENDPOINTS, { url: "http://localhost:8080/hook" }, keyOf(h, mode));
      expectErrorObject(res, 400, 40001);
      expect(res.body.message).toMatch(/localhost resolves to a private or reserved address/);
    });

    it.each([
      ["a public IPv4 address", "https://93.184.215.14/hook"],
      ["a public IPv6 address", "https://[2606:2800:21f:cb07:6820:80da:af6b:8b2c]/hook"],
      ["a public IPv4 address written IPv4-mapped (the same address to the kernel), in hex", "https://[::ffff:5db8:d70e]/hook"],
      ["an ISATAP interface id of a public address, in hex", "https://[2606:2800:21f:cb07:200:5efe:5db8:d70e]/hook"],
      ["a name whose every address is public", "https://public.test/hook"],
    ])("accepts %s", async (_what, url) => {
      const h = await router(false);
      const endpoint = await createEndpoint(h, url, { key: keyOf(h, mode) });
      expect(endpoint).toMatchObject({ url, status: "enabled" });
    });
  });

  it("names the host but never the addresses it resolved to", async () => {
    const h = await router(false);
    const res = await h.post(ENDPOINTS, { url: "https://mixed.test/hook" });
    expect(res.body.message).toContain("mixed.test resolves to a private or reserved address");
    expect(res.body.message).not.toMatch(/10\.0\.0\.1|93\.184/);
  });

  it("accepts a name that does not resolve yet, since every delivery checks it again", async () => {
    const h = await router(false);
    const endpoint = await createEndpoint(h, "https://not-yet.test/hook");
    expect(endpoint.status).toBe("enabled");
  });
});

describe("sending", () => {
  it("refuses at send time a name that resolved to a public address at registration and to a private one now", async () => {
    const zone: Zone = { "rebind.test": ["93.184.215.14"] };
    const h = await router(false, zone);
    const receiver = await startReceiver();
    const endpoint = await createEndpoint(h, `http://rebind.test:${receiver.port}/hook`);

    zone["rebind.test"] = ["127.0.0.1"]; // the name's owner re-points it at the service's own host
    const deliveryId = await queueTestEvent(h, "test", endpoint.id);
    await drain(h);

    expect(receiver.requests).toHaveLength(0);
    const delivery = await getDelivery(h, deliveryId);
    expect(delivery).toMatchObject({
      status: "failed",
      attemptCount: 1,
      lastStatusCode: null,
      lastError: "rebind.test resolves to a private or reserved address",
    });
    expect(delivery.attempts.map((attempt) => attempt.error)).toEqual(["rebind.test resolves to a private or reserved address"]);
  });

  it.each(MODES)("refuses every blocked address and name in %s mode, without retrying", async (mode) => {
    const h = await router(false);
    const deliveries = [];
    for (const [, url] of BLOCKED) deliveries.push(await queueTestEvent(h, mode, await insertEndpoint(h, mode, url)));
    await drain(h);
    for (const id of deliveries) {
      const delivery = await getDelivery(h, id, keyOf(h, mode));
      expect(delivery).toMatchObject({ status: "failed", attemptCount: 1, lastStatusCode: null });
      expect(delivery.lastError).toMatch(/^\S+ (is|resolves to) a private or reserved address$/);
    }
  });

  it.each(MODES)("delivers to a private address in %s mode when the host allows private URLs", async (mode) => {
    const h = await router(true);
    const receiver = await startReceiver();
    const endpoint = await createEndpoint(h, receiver.url, { key: keyOf(h, mode) });
    const deliveryId = await queueTestEvent(h, mode, endpoint.id);
    await drain(h);
    expect(receiver.requests).toHaveLength(1);
    expect((await getDelivery(h, deliveryId, keyOf(h, mode))).status).toBe("succeeded");
  });

  it("connects to the address the lookup answered, resolving once per attempt, under the endpoint's own host name", async () => {
    const calls: string[] = [];
    // A name no real DNS knows: the request can only arrive if the connection used the checked answer.
    const h = await harness({ webhooks: { allowPrivateUrls: true, lookup: zoneLookup({ "receiver.test": ["127.0.0.1"] }, calls) } });
    const receiver = await startReceiver();
    const endpoint = await createEndpoint(h, `http://receiver.test:${receiver.port}/hook`);
    expect(calls).toEqual([]); // the opt-in needs no check at registration
    await queueTestEvent(h, "test", endpoint.id);
    await drain(h);
    expect(receiver.requests).toHaveLength(1);
    expect(receiver.requests[0]!.headers.host).toBe(`receiver.test:${receiver.port}`);
    expect(calls).toEqual(["receiver.test"]);
  });

  it("never reuses a connection opened for a router that allows private URLs", async () => {
    const receiver = await startReceiver();
    const url = `http://shared.test:${receiver.port}/hook`;
    // One router may reach the receiver on 127.0.0.1 and leaves a keep-alive connection to it.
    const open = await harness({ webhooks: { allowPrivateUrls: true, lookup: zoneLookup({ "shared.test": ["127.0.0.1"] }) } });
    await queueTestEvent(open, "test", (await createEndpoint(open, url)).id);
    await drain(open);
    expect(receiver.requests).toHaveLength(1);

    // Another, in the same process, is told the same name is public: it must connect there,
    // not through the connection the first one left open.
    const strict = await router(false, { "shared.test": ["93.184.215.14"] }, { timeoutMs: 300, retrySchedule: [] });
    const deliveryId = await queueTestEvent(strict, "test", (await createEndpoint(strict, url)).id);
    await drain(strict);
    expect(receiver.requests).toHaveLength(1);
    expect((await getDelivery(strict, deliveryId)).status).toBe("failed");
  });
});

describe("options", () => {
  it("refuses a lookup that is not a function at start-up", () => {
    expect(() => createPaymentRouter({ storage: memoryStorage(), backgroundIntervalMs: false, webhooks: { lookup: "8.8.8.8" as never } })).toThrow(
      /webhooks\.lookup: must be a function/,
    );
  });
});

/**
 * The guard reads IPv6 groups itself only to find an ISATAP interface id; Node's BlockList
 * (which parses addresses natively) is the oracle for every spelling it may meet.
 */
describe("reading an IPv6 address", () => {
  const group = fc.oneof(fc.constant(0), fc.constant(0xffff), fc.constant(0x5efe), fc.integer({ min: 0, max: 0xffff }));
  /** Eight groups and one way of writing them: zero-padded or not, upper case or not, a dotted tail or not, any zero run compressed. */
  const spelt = fc
    .record({
      groups: fc.array(group, { minLength: 8, maxLength: 8 }),
      pad: fc.boolean(),
      upper: fc.boolean(),
      dotted: fc.boolean(),
      run: fc.nat(),
      length: fc.nat(),
    })
    .map(({ groups, pad, upper, dotted, run, length }) => {
      const hex = groups.map((g) => (pad ? g.toString(16).padStart(4, "0") : g.toString(16)));
      const parts = dotted ? [...hex.slice(0, 6), [groups[6]! >> 8, groups[6]! & 0xff, groups[7]! >> 8, groups[7]! & 0xff].join(".")] : hex;
      // Compress a run of zero groups that starts at `run`, if there is one there.
      const width = dotted ? 6 : 8;
      const start = run % width;
      let end = start;
      while (end < width && end - start < 1 + (length % 8) && groups[end] === 0) end += 1;
      let text = parts.join(":");
      if (end > start) text = `${parts.slice(0, start).join(":")}::${parts.slice(end).join(":")}`;
      return { groups, text: upper ? text.toUpperCase() : text };
    });

  it("reads every spelling as the address Node reads", () => {
    fc.assert(
      fc.property(spelt, ({ groups, text }) => {
        const node = new BlockList();
        node.addAddress(groups.map((g) => g.toString(16)).join(":"), "ipv6");
        expect(node.check(text, "ipv6"), text).toBe(true); // the spelling is right, by Node's parser
        expect(ipv6Groups(text), text).toEqual(groups);
      }),
      { seed: 18, numRuns: 2000 },
    );
  });

  it("reads fast-check's IPv6 addresses as Node and the URL parser do", () => {
    fc.assert(
      fc.property(fc.ipV6(), (text) => {
        const groups = ipv6Groups(text);
        expect(groups, text).not.toBeNull();
        const node = new BlockList();
        node.addAddress(groups!.map((g) => g.toString(16)).join(":"), "ipv6");
        expect(node.check(text, "ipv6"), text).toBe(true);
        expect(ipv6Groups(new URL(`http://[${text}]/`).hostname.slice(1, -1)), text).toEqual(groups);
      }),
      { seed: 18, numRuns: 2000 },
    );
  });

  it("refuses an ISATAP interface id exactly when its IPv4 address is refused", () => {
    fc.assert(
      fc.property(fc.ipV4(), fc.constantFrom("0", "100", "200", "300"), (ipv4, flags) => {
        expect(isPrivateAddress(`2606:2800:21f:cb07:${flags}:5efe:${ipv4}`), ipv4).toBe(isPrivateAddress(ipv4));
      }),
      { seed: 18, numRuns: 500 },
    );
  });
});
