/**
 * The webhook receiver of bench/deliveries.ts, in its own process: `tsx bench/delivery-receiver.ts
 * <delayMs>`. Answers every POST 200 after `delayMs` (0: at once), and keeps, per webhook-id, how
 * often it came and a hash of its first body, so the bench can tell deliveries from duplicates
 * and see that every attempt of a message carried the same body. GET /stats reports; POST
 * /reset forgets. Prints one JSON line with its port once it listens.
 */
import { createHash } from "node:crypto";
import { createServer } from "node:http";

const delayMs = Number(process.argv[2] ?? 0);
const bodies = new Map<string, string>();
let total = 0;
let mismatched = 0;
let first = 0;
let last = 0;

const server = createServer((req, res) => {
  if (req.method === "GET") {
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ unique: bodies.size, total, duplicates: total - bodies.size, mismatched, first, last }));
    return;
  }
  if (req.url === "/reset") {
    bodies.clear();
    total = mismatched = first = last = 0;
    res.writeHead(204).end();
    return;
  }
  const hash = createHash("sha256");
  req.on("data", (chunk: Buffer) => hash.update(chunk));
  req.on("end", () => {
    const answer = () => {
      const id = String(req.headers["webhook-id"]);
      const digest = hash.digest("hex");
      const seen = bodies.get(id);
      if (seen === undefined) {
        bodies.set(id, digest);
        last = Date.now();
        first ||= last;
      } else if (seen !== digest) {
        mismatched++;
      }
      total++;
      res.writeHead(200, { "content-type": "application/json" });
      res.end('{"received":true}');
    };
    if (delayMs > 0) setTimeout(answer, delayMs);
    else answer();
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, "127.0.0.1", () => {
  const address = server.address();
  if (!address || typeof address === "string") throw new Error("no port");
  console.log(JSON.stringify({ port: address.port }));
});
process.on("SIGTERM", () => process.exit(0));
