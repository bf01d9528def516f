import { createServer, type AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { EVENT_TYPES } from "../../src/storage";
import express from "express";
import { cli } from "./cli";
import { listen, startCli } from "./service";

/**
 * The development commands' arguments and failures: usage errors exit 2 before anything is sent
 * (no service runs here), a live key is refused, a service that is not there is exit 1 with the
 * reason, and listen rides out a service that stops answering for a while.
 */

const TEST_KEY = "sk_test_000000000000000000000000";
const SERVICE = { EXPRESS_CRYPTO_PAY_URL: "http://127.0.0.1:9/payments", EXPRESS_CRYPTO_PAY_API_KEY: TEST_KEY };

describe("help", () => {
  it("lists listen and trigger apart from the operator commands, and trigger's help names every event type", async () => {
    const all = await cli(["--help"]);
    expect(all.code).toBe(0);
    expect(all.stdout).toMatch(
      /Local development[^\n]*\n {2}listen +Forward the service's test events, signed, to a local URL\n {2}trigger +Make the service produce/,
    );
    expect(all.stdout).toContain("--api-key <key>");
    const trigger = await cli(["trigger", "--help"]);
    expect(trigger.code).toBe(0);
    expect(trigger.stdout).toContain("Usage: express-crypto-pay trigger EVENT_TYPE");
    expect(trigger.stdout).toContain("[--url URL] [--api-key KEY]");
    for (const type of EVENT_TYPES) expect(trigger.stdout).toContain(type);
    expect(trigger.stdout).not.toContain("--config");
  });
});

describe("usage errors exit 2 with the usage on stderr", () => {
  it.each([
    [
      "an unknown event type, listing the valid ones",
      ["trigger", "payment.paid"],
      SERVICE,
      `error: unknown event type "payment.paid"; the service sends:\n  payment.created\n  payment.confirming`,
    ],
    ["no event type", ["trigger"], SERVICE, "error: missing EVENT_TYPE"],
    ["a bad amount", ["trigger", "payment.created", "--amount", "1e3"], SERVICE, "error: --amount must be a decimal number"],
    ["a bad timeout", ["trigger", "payout.completed", "--timeout", "0"], SERVICE, "error: --timeout must be 1 to 3600"],
    ["no --forward-to", ["listen"], SERVICE, "error: --forward-to <url> is required"],
    ["a --forward-to that is no URL", ["listen", "--forward-to", "localhost:4000"], SERVICE, "error: --forward-to must be an http or https URL"],
    [
      "a secret of another form",
      ["listen", "--forward-to", "http://localhost:4000/hooks", "--secret", "hunter2"],
      SERVICE,
      "error: --secret must be a whsec_ secret",
    ],
    ["no service", ["trigger", "payment.created"], { EXPRESS_CRYPTO_PAY_API_KEY: TEST_KEY }, "error: no service: pass --url"],
    ["no key", ["listen", "--forward-to", "http://localhost:4000/hooks", "--url", "http://127.0.0.1:9"], {}, "error: no API key: pass --api-key"],
    [
      "a live key",
      ["trigger", "payment.created", "--api-key", "sk_live_000000000000000000000000"],
      SERVICE,
      "error: trigger works with test keys only (sk_test_...)",
    ],
    [
      "a --config (these commands talk to a service)",
      ["listen", "--forward-to", "http://localhost:4000/hooks", "--config", "x.mjs"],
      SERVICE,
      "error: Unknown option '--config'",
    ],
  ])("%s", async (_title, args, env, message) => {
    const run = await cli(args, env);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe("");
    expect(run.stderr).toContain(message);
    expect(run.stderr).toContain(`Usage: express-crypto-pay ${args[0]} `);
  });
});

it("exits 1 naming the service it could not reach", async () => {
  // A port that was free a moment ago: nothing listens there.
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  const url = `http://127.0.0.1:${port}/payments`;
  const run = await cli(["trigger", "payment.created"], { ...SERVICE, EXPRESS_CRYPTO_PAY_URL: url });
  expect(run.code).toBe(1);
  expect(run.stderr).toContain(`error: could not reach the service at ${url} (ECONNREFUSED): is it running, and is --url where the router is mounted?`);
});

it("listen says once that the service stopped answering, keeps polling, and forwards what comes after", async () => {
  // A stand-in for the service's event log that fails twice (a restart) and then has one event.
  let calls = 0;
  const service = express();
  service.get("/payments/v1/events", (req, res) => {
    calls++;
    if (req.query.after === "now") return void res.json({ data: [], nextCursor: "7" });
    if (calls <= 3) return void res.status(503).json({ error: 50301, message: "restarting" });
    const data =
      calls === 4
        ? [
            {
              id: "evt_1",
              object: "event",
              livemode: false,
              type: "payment.created",
              createdAt: new Date().toISOString(),
              data: { id: "inv_1", status: "PENDING" },
            },
          ]
        : [];
    res.json({ data, nextCursor: "8" });
  });
  const received: string[] = [];
  const receiver = express();
  receiver.post("/hooks", express.text({ type: "*/*" }), (req, res) => {
    received.push(req.headers["webhook-id"] as string);
    res.sendStatus(204);
  });
  const up = await listen(service);
  const hooks = await listen(receiver);
  try {
    const running = startCli(["listen", "--forward-to", `${hooks.base}/hooks`, "--interval", "100"], {
      EXPRESS_CRYPTO_PAY_URL: `${up.base}/payments`,
      EXPRESS_CRYPTO_PAY_API_KEY: TEST_KEY,
    });
    await running.line(/payment\.created\s+evt_1\s+-> 204/);
    running.child.kill("SIGINT");
    expect(await running.exited).toBe(0);
    expect(running.stdout().match(/warning: GET \/v1\/events\?after=7&limit=100 answered 503 \(50301\): restarting; retrying/g)).toHaveLength(1);
    expect(running.stdout()).toContain("the service answers again");
    expect(received).toEqual(["evt_1"]);
  } finally {
    up.server.close();
    hooks.server.close();
  }
});
