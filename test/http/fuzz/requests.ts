import { gzipSync } from "node:zlib";
import type { Express } from "express";
import fc from "fast-check";
import request from "supertest";
import {
  deepArray,
  deepObject,
  hostileString,
  hostileValue,
  objectEntries,
  objectText,
  validText,
  type Entries,
  type FieldHints,
  type JsonSchema,
} from "./json-text";
import { collectionOf, type FuzzRoute } from "./routes";

/** Which credentials a request carries. */
export type KeyKind = "test" | "live" | "other merchant" | "none" | "malformed" | "unknown key";

/** What the fuzzer knows of the app: keys and ids of records that exist. */
export interface FuzzWorld {
  keys: { test: string; live: string; other: string };
  /** Ids by collection ("payments", "webhook-endpoints", ...): the caller's, the other mode's and the other merchant's. */
  ids: Record<string, string[]>;
  /** Values for body and query fields by name (invoiceId, address, txHash, ...). */
  hints: FieldHints;
  resolve: (ref: string) => JsonSchema;
}

/** One generated request, kept as plain data so fast-check can print and shrink it. */
export interface FuzzRequest {
  method: string;
  /** Path and query exactly as sent (already percent-encoded, or deliberately not). */
  url: string;
  key: KeyKind;
  headers: Record<string, string>;
  /** The body text before any Content-Encoding. */
  body?: string;
  /** How the body is put on the wire. */
  encoding?: "gzip" | "gzip garbage" | "deflate garbage" | "br garbage" | "unknown coding";
}

/**
 * Longest string put in a URL. Node's HTTP server answers 431 itself past its 16 KB header
 * limit, before the app sees the request: that answer says nothing about the router.
 */
const URL_LONGEST = 8_000;

const BAD_SEGMENTS = ["%E0%A4%A", "%00", "%", "%zz", "%C0%80", "%ED%A0%80", "%FF", "a%2Fb", "%2e%2e", "..", ".", "%20", "%0A", "%u0041"];

/** One path parameter: a real id (of any owner), a real id with something stuck to it, or junk. */
function segment(world: FuzzWorld, route: FuzzRoute): fc.Arbitrary<string> {
  const ids = world.ids[collectionOf(route.path)] ?? [];
  const all = Object.values(world.ids).flat();
  const known = ids.length > 0 ? ids : all;
  return fc.oneof(
    ...(known.length > 0 ? [{ arbitrary: fc.constantFrom(...known), weight: 3 }] : []),
    ...(all.length > 0 ? [{ arbitrary: fc.constantFrom(...all), weight: 1 }] : []),
    ...(known.length > 0
      ? [
          {
            arbitrary: fc
              .tuple(fc.constantFrom(...known), fc.constantFrom("%00", "%E0%A4%A", "%", "%0A", "%FF"))
              .map(([id, tail]) => encodeURIComponent(id) + tail),
            weight: 2,
          },
        ]
      : []),
    { arbitrary: fc.constantFrom(...BAD_SEGMENTS), weight: 3 },
    { arbitrary: hostileString(known, URL_LONGEST).map((s) => encodeURIComponent(s.replace(/[\ud800-\udfff]/g, "\u0000"))), weight: 3 },
  );
}

/** A query value: valid for its schema, or hostile (NUL, bad encodings, long). */
function queryValue(schema: JsonSchema, name: string, world: FuzzWorld): fc.Arbitrary<string> {
  const valid = validText(schema, world.resolve, world.hints, name).map((text) => {
    const value: unknown = JSON.parse(text);
    return encodeURIComponent(typeof value === "string" ? value : JSON.stringify(value));
  });
  return fc.oneof(
    { arbitrary: valid, weight: 3 },
    {
      arbitrary: fc.constantFrom("%E0%A4%A", "%00", "%", "%FF", "1e400", "-0", "10.0000000000000001", "1e-30", "NaN", "-1", "0", "101", "9999999999999999999"),
      weight: 2,
    },
    { arbitrary: hostileString(world.hints(name), URL_LONGEST).map((s) => encodeURIComponent(s.replace(/[\ud800-\udfff]/g, "\u0000"))), weight: 2 },
  );
}

function queryString(route: FuzzRoute, world: FuzzWorld): fc.Arbitrary<string> {
  const known = route.query.map(({ name, schema }) =>
    fc.option(
      queryValue(schema, name, world).map((value) => `${name}=${value}`),
      { nil: undefined, freq: 2 },
    ),
  );
  const extra = fc.oneof(
    { arbitrary: fc.constant([] as string[]), weight: 4 },
    { arbitrary: fc.constantFrom(["unknown=1"], ["a[b]=c"], ["%E0%A4%A=1"], ["%00=%00"], ["=x"], ["__proto__=x"], ["constructor[prototype]=x"]), weight: 1 },
    ...(route.query.length > 0 ? [{ arbitrary: fc.constantFrom(...route.query.map(({ name }) => [`${name}=1`, `${name}=2`])), weight: 1 }] : []),
  );
  return fc.tuple(fc.tuple(...known), extra).map(([parts, more]) => {
    const all = [...parts.filter((part): part is string => part !== undefined), ...more];
    return all.length > 0 ? `?${all.join("&")}` : "";
  });
}

/** Bodies for a JSON route: mostly schema-shaped, one field at a time made hostile, or not JSON. */
function jsonBody(schema: JsonSchema, world: FuzzWorld): fc.Arbitrary<string> {
  const entries = objectEntries(schema, world.resolve, world.hints);
  const names = Object.keys(schema.properties ?? {});
  const fieldValue = (name: string) => validText(schema.properties?.[name] ?? {}, world.resolve, world.hints, name);
  const withHostileField: fc.Arbitrary<string> =
    names.length > 0
      ? fc
          .tuple(entries, fc.constantFrom(...names))
          .chain(([fields, name]) =>
            hostileValue(fieldValue(name), world.hints(name)).map((value) => objectText([...fields.filter(([key]) => key !== name), [name, value]])),
          )
      : hostileValue(fc.constant("1")).map((value) => objectText([["field", value]]));
  const withExtraKey = fc
    .tuple(
      entries,
      fc.constantFrom<[string, string]>(
        ["__proto__", '{"polluted":true}'],
        ["constructor", '{"prototype":{"polluted":true}}'],
        ["unknownField", "1"],
        ["", "1"],
        ["a\u0000b", "1"],
      ),
    )
    .map(([fields, extra]) => objectText([...fields, extra] as Entries));
  const withoutAField = fc.tuple(entries, fc.nat()).map(([fields, index]) => objectText(fields.filter((_, i) => i !== index % Math.max(fields.length, 1))));
  const deepMetadata = fc
    .tuple(entries, fc.constantFrom(100, 2_000))
    .map(([fields, depth]) => objectText([...fields.filter(([key]) => key !== "metadata"), ["metadata", `{"deep":${deepObject(depth)}}`]]));
  return fc.oneof(
    { arbitrary: entries.map(objectText), weight: 6 },
    { arbitrary: withHostileField, weight: 6 },
    { arbitrary: withExtraKey, weight: 2 },
    { arbitrary: withoutAField, weight: 1 },
    { arbitrary: deepMetadata, weight: 1 },
    { arbitrary: entries.map((fields) => `[${objectText(fields)}]`), weight: 1 },
    {
      arbitrary: fc.constantFrom(
        "{",
        '{"amount": 10,',
        "{'amount': 1}",
        '{"a":1}garbage',
        "undefined",
        "NaN",
        "nul",
        "\u0000",
        '"just a string"',
        "1e400",
        "[]",
        "null",
        deepObject(2_000),
        deepArray(2_000),
        `{"metadata":{"x":"${"a".repeat(200_000)}"}}`,
      ),
      weight: 2,
    },
  );
}

/** Form bodies for the hosted page's coin choice. */
function formBody(): fc.Arbitrary<string> {
  const value = fc.oneof(
    fc.constantFrom("USDT", "BTC", "TRX", "ETH", ""),
    hostileString().map((s) => encodeURIComponent(s.replace(/[\ud800-\udfff]/g, ""))),
    fc.constantFrom("%E0%A4%A", "%00"),
  );
  return fc.tuple(value, fc.option(value, { nil: undefined })).map(([coin, network]) => `coin=${coin}${network === undefined ? "" : `&network=${network}`}`);
}

const WEIRD_METHODS = ["PUT", "PATCH", "DELETE", "GET", "POST"];

/** Everything the fuzzer sends to one route. */
export function requestArbitrary(route: FuzzRoute, world: FuzzWorld): fc.Arbitrary<FuzzRequest> {
  const segments = route.path.split("/").map((part) => (part.startsWith("{") ? segment(world, route) : fc.constant(part)));
  const path = fc.tuple(...segments).map((parts) => parts.join("/"));
  const trailingSlash = fc.oneof({ arbitrary: fc.constant(""), weight: 9 }, { arbitrary: fc.constant("/"), weight: 1 });
  const method = fc.oneof({ arbitrary: fc.constant(route.method), weight: 12 }, { arbitrary: fc.constantFrom(...WEIRD_METHODS), weight: 1 });
  const key = fc.oneof(
    { arbitrary: fc.constant<KeyKind>("test"), weight: 6 },
    { arbitrary: fc.constant<KeyKind>("live"), weight: 2 },
    { arbitrary: fc.constant<KeyKind>("other merchant"), weight: 2 },
    { arbitrary: fc.constantFrom<KeyKind>("none", "malformed", "unknown key"), weight: 1 },
  );
  const hasBody = route.method === "POST";
  const body: fc.Arbitrary<string | undefined> = !hasBody
    ? fc.constant(undefined)
    : route.form
      ? formBody()
      : fc.oneof({ arbitrary: jsonBody(route.body ?? { type: "object" }, world), weight: 12 }, { arbitrary: fc.constant(undefined), weight: 1 });
  const contentType = route.form
    ? fc.oneof(
        { arbitrary: fc.constant("application/x-www-form-urlencoded"), weight: 6 },
        { arbitrary: fc.constantFrom("application/json", "text/plain"), weight: 1 },
      )
    : fc.oneof(
        { arbitrary: fc.constant("application/json"), weight: 12 },
        {
          arbitrary: fc.constantFrom(
            "application/json; charset=utf-8",
            "application/vnd.api+json",
            "application/json; charset=latin1",
            "text/plain",
            "application/x-www-form-urlencoded",
            "none",
          ),
          weight: 2,
        },
      );
  const encoding = fc.oneof(
    { arbitrary: fc.constant(undefined), weight: 14 },
    { arbitrary: fc.constantFrom<FuzzRequest["encoding"]>("gzip", "gzip garbage", "deflate garbage", "br garbage", "unknown coding"), weight: 2 },
  );
  const idempotencyKey = fc.oneof({ arbitrary: fc.constant(undefined), weight: 4 }, { arbitrary: fc.constantFrom("fuzz-1", "fuzz-2"), weight: 1 });
  return fc
    .record({
      method,
      path,
      trailingSlash,
      query: route.method === "GET" || route.query.length > 0 ? queryString(route, world) : fc.constant(""),
      key,
      body,
      contentType,
      encoding,
      idempotencyKey,
    })
    .map(({ method, path, trailingSlash, query, key, body, contentType, encoding, idempotencyKey }) => {
      const headers: Record<string, string> = {};
      if (body !== undefined && contentType !== "none") headers["Content-Type"] = contentType;
      if (idempotencyKey !== undefined && method === "POST") headers["Idempotency-Key"] = idempotencyKey;
      const request: FuzzRequest = { method, url: `${path}${trailingSlash}${query}`, key, headers };
      if (body !== undefined) request.body = body;
      if (body !== undefined && encoding !== undefined) request.encoding = encoding;
      return Object.assign(request, { [fc.toStringMethod]: () => describeRequest(request) });
    });
}

/** A short, readable form of a request for counterexamples: long runs of one character are abbreviated. */
export function describeRequest(request: FuzzRequest): string {
  const shorten = (text: string) =>
    JSON.stringify(text.length > 400 ? `${text.slice(0, 200)}…(${text.length} chars)…${text.slice(-60)}` : text).replace(
      /(.)\1{39,}/g,
      (run, char: string) => `${char.repeat(5)}…×${run.length}`,
    );
  const parts = [`${request.method} ${shorten(request.url)}`, `key=${request.key}`];
  for (const [name, value] of Object.entries(request.headers)) parts.push(`${name}: ${value}`);
  if (request.encoding) parts.push(`Content-Encoding: ${request.encoding}`);
  if (request.body !== undefined) parts.push(`body=${shorten(request.body)}`);
  return `{ ${parts.join(", ")} }`;
}

const GARBAGE = Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0xde, 0xad, 0xbe, 0xef, 0x00, 0xff, 0x13, 0x37]);

/** Sends a generated request to the app. */
export async function send(app: Express, world: FuzzWorld, fuzz: FuzzRequest): Promise<request.Response> {
  const agent = request(app);
  const method = fuzz.method.toLowerCase() as "get" | "post" | "put" | "patch" | "delete";
  let call = agent[method](fuzz.url);
  const authorization: Record<KeyKind, string | null> = {
    test: `Bearer ${world.keys.test}`,
    live: `Bearer ${world.keys.live}`,
    "other merchant": `Bearer ${world.keys.other}`,
    none: null,
    malformed: "Bearer",
    "unknown key": "Bearer sk_test_0000000000000000000000000000",
  };
  const header = authorization[fuzz.key];
  if (header !== null) call = call.set("Authorization", header);
  for (const [name, value] of Object.entries(fuzz.headers)) call = call.set(name, value);
  if (fuzz.body === undefined) return call;
  // Bytes exactly as generated: superagent would otherwise JSON-encode a Buffer under a JSON
  // Content-Type ({"type":"Buffer","data":[...]}) and label a bare string as a form.
  call = call.serialize((data: unknown) => data as string);
  const text = Buffer.from(fuzz.body, "utf8");
  switch (fuzz.encoding) {
    case undefined:
      return call.send(text);
    case "gzip":
      return call.set("Content-Encoding", "gzip").send(gzipSync(text));
    case "gzip garbage":
      return call.set("Content-Encoding", "gzip").send(GARBAGE);
    case "deflate garbage":
      return call.set("Content-Encoding", "deflate").send(GARBAGE);
    case "br garbage":
      return call.set("Content-Encoding", "br").send(GARBAGE);
    case "unknown coding":
      return call.set("Content-Encoding", "x-fuzz").send(text);
  }
}
