import { createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A JSON-RPC pass-through in front of a real node, on 127.0.0.1, that can refuse chosen methods
 * the way a node going away does (the connection is cut), or answer them as a node without them
 * or a provider capping eth_getLogs does. Tests use it to stop a process
 * between signing a payout and broadcasting it, against the real node behind.
 */
export interface RpcProxy {
  url: string;
  /** Methods whose requests get their connection cut (in a batch, the whole batch); "*" cuts every request: a node that is down. */
  refuse: Set<string>;
  /** Methods whose requests are held without an answer, as a frozen node does (until `close`). */
  hang: Set<string>;
  /** Methods answered with JSON-RPC's "method not found" (-32601), as a node without that API answers. */
  unsupported: Set<string>;
  /**
   * Holds the next request of `method` until `release()` is called, then passes it on: a node
   * slow to answer one call, so that a test can act while a poll is in the middle of its work.
   * `reached` resolves once that request has arrived.
   */
  pause(method: string): { reached: Promise<void>; release(): void };
  /** How many requests of each method went through or were refused. */
  seen: Map<string, number>;
  /**
   * Most blocks one eth_getLogs may span: a wider one is answered with Infura's error for too
   * many results (-32005), as providers that cap eth_getLogs answer. Default: no limit.
   */
  logBlockLimit: number;
  close(): Promise<void>;
}

interface RpcCall {
  id: number | string;
  method: string;
  params?: unknown[];
}

/** Starts a proxy to `target` (an http URL of a node). */
export async function startRpcProxy(target: string): Promise<RpcProxy> {
  const upstream = new URL(target);
  const refuse = new Set<string>();
  const hang = new Set<string>();
  const unsupported = new Set<string>();
  const seen = new Map<string, number>();
  const limits = { logBlocks: Number.POSITIVE_INFINITY };
  const paused = new Map<string, { arrived: () => void; released: Promise<void> }>();
  /** An eth_getLogs wider than the limit, answered here with the provider's error. */
  const tooWide = (call: RpcCall): boolean => {
    if (call.method !== "eth_getLogs") return false;
    const filter = (call.params?.[0] ?? {}) as { fromBlock?: string; toBlock?: string };
    if (!filter.fromBlock?.startsWith("0x") || !filter.toBlock?.startsWith("0x")) return false;
    return Number(filter.toBlock) - Number(filter.fromBlock) + 1 > limits.logBlocks;
  };
  const answeredHere = (call: RpcCall): boolean => unsupported.has(call.method) || tooWide(call);
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const body = Buffer.concat(chunks);
      let methods: string[] = [];
      let calls: RpcCall[] = [];
      try {
        const parsed = JSON.parse(body.toString("utf8")) as RpcCall | RpcCall[];
        calls = Array.isArray(parsed) ? parsed : [parsed];
        methods = calls.map((call) => String(call.method));
      } catch {
        // Not JSON: pass it on and let the node answer.
      }
      for (const method of methods) seen.set(method, (seen.get(method) ?? 0) + 1);
      if (refuse.has("*") || methods.some((method) => refuse.has(method))) {
        req.socket.destroy();
        return;
      }
      if (methods.some((method) => hang.has(method))) return;
      const gate = methods.map((method) => paused.get(method)).find((entry) => entry !== undefined);
      for (const method of methods) paused.delete(method);
      gate?.arrived();
      void (gate?.released ?? Promise.resolve()).then(() => passOn(body, calls, req, res));
    });
  });
  /** Answers a request here (a method made unsupported, a capped eth_getLogs) or forwards it to the node. */
  const passOn = (body: Buffer, calls: RpcCall[], req: IncomingMessage, res: ServerResponse): void => {
    if (calls.some(answeredHere)) {
      void answerEach(JSON.parse(body.toString("utf8")) as RpcCall | RpcCall[]).then((answer) => {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify(answer));
      });
      return;
    }
    const forward = httpRequest(
      {
        host: upstream.hostname,
        port: upstream.port,
        path: upstream.pathname,
        method: "POST",
        // Bitcoin Core's RPC wants its Basic credentials: they pass through as the client sent them.
        headers: {
          "content-type": "application/json",
          "content-length": body.length,
          ...(req.headers.authorization ? { authorization: req.headers.authorization } : {}),
        },
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, { "content-type": "application/json" });
        answer.pipe(res);
      },
    );
    forward.on("error", () => req.socket.destroy());
    forward.end(body);
  };
  // One call at a time, the unsupported ones answered here, the others by the node.
  const answerEach = async (calls: RpcCall | RpcCall[]): Promise<unknown> => {
    if (!Array.isArray(calls)) return ((await answerEach([calls])) as unknown[])[0];
    const answers: unknown[] = [];
    for (const call of calls) {
      if (unsupported.has(call.method)) {
        answers.push({ jsonrpc: "2.0", id: call.id, error: { code: -32601, message: `the method ${call.method} does not exist/is not available` } });
      } else if (tooWide(call)) {
        answers.push({ jsonrpc: "2.0", id: call.id, error: { code: -32005, message: "query returned more than 10000 results" } });
      } else {
        const response = await fetch(target, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(call) });
        answers.push(await response.json());
      }
    }
    return answers;
  };
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    refuse,
    hang,
    unsupported,
    seen,
    pause(method) {
      let arrived!: () => void;
      let release!: () => void;
      const reached = new Promise<void>((resolve) => (arrived = resolve));
      paused.set(method, { arrived, released: new Promise<void>((resolve) => (release = resolve)) });
      return { reached, release };
    },
    get logBlockLimit() {
      return limits.logBlocks;
    },
    set logBlockLimit(blocks: number) {
      limits.logBlocks = blocks;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
