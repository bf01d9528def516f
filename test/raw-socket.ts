import { connect, type AddressInfo } from "node:net";
import type { Server } from "node:http";
import type express from "express";

/** An answer read off a raw socket, up to the moment the server closed it. */
export interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: Record<string, unknown>;
  text: string;
}

/** Serves `app` on a free port of 127.0.0.1 until `close`, which also cuts open connections. */
export async function serveRaw(app: express.Express): Promise<{ port: number; close: () => Promise<void> }> {
  const server: Server = app.listen(0, "127.0.0.1");
  await new Promise<void>((resolve, reject) => server.once("listening", resolve).once("error", reject));
  return {
    port: (server.address() as AddressInfo).port,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/**
 * Writes `request` (a request head and as much of its body as the test wants to send) on a new
 * connection and never more, then reads until the server closes the connection. Resolves only
 * once the server has both answered and closed: a server that keeps the socket open makes the
 * test time out.
 */
export function sendAndWaitForClose(port: number, request: string): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1");
    const chunks: Buffer[] = [];
    socket.on("data", (chunk: Buffer) => chunks.push(chunk));
    socket.on("error", reject);
    socket.on("end", () => {
      socket.destroy();
      const raw = Buffer.concat(chunks).toString("utf8");
      const [head = "", text = ""] = raw.split("\r\n\r\n", 2);
      const [statusLine = "", ...lines] = head.split("\r\n");
      const headers = Object.fromEntries(lines.map((line) => [line.slice(0, line.indexOf(":")).toLowerCase(), line.slice(line.indexOf(":") + 1).trim()]));
      let body: Record<string, unknown> = {};
      try {
        body = JSON.parse(text) as Record<string, unknown>;
      } catch {
        // left empty: the assertions on the body say what was wrong
      }
      resolve({ status: Number(statusLine.split(" ")[1]), headers, body, text });
    });
    socket.write(request);
  });
}
