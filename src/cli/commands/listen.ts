import { setTimeout as sleep } from "node:timers/promises";
import { generateWebhookSecret } from "../../index";
import { webhookHeaders } from "../../webhooks/index";
import { webhookPayload } from "../../storage";
import { stringFlag } from "../command";
import { UsageError } from "../errors";
import { type Json, RemoteError, UnreachableError } from "../remote/api";
import type { RemoteCommand, RemoteInput } from "../remote/command";

const NAME = "listen";
const PAGE = 100;

/** The flags of `listen`, checked before anything is sent. */
function listenInput(values: RemoteInput["values"]): { forwardTo: string; secret: string | null; intervalMs: number } {
  const forwardTo = stringFlag(values, "forward-to");
  if (!forwardTo) throw new UsageError("--forward-to <url> is required: where to send the events, e.g. http://localhost:4000/webhooks", NAME);
  let url: URL;
  try {
    url = new URL(forwardTo);
  } catch {
    throw new UsageError(`--forward-to ${JSON.stringify(forwardTo)} is not a URL`, NAME);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new UsageError("--forward-to must be an http or https URL", NAME);
  const secret = stringFlag(values, "secret") ?? null;
  if (secret !== null && !/^whsec_[A-Za-z0-9+/]+={0,2}$/.test(secret)) throw new UsageError("--secret must be a whsec_ secret (whsec_ and base64)", NAME);
  const interval = stringFlag(values, "interval") ?? "1000";
  if (!/^[0-9]+$/.test(interval) || Number(interval) < 100 || Number(interval) > 60_000) throw new UsageError("--interval must be 100 to 60000 (ms)", NAME);
  return { forwardTo: url.href, secret, intervalMs: Number(interval) };
}

/** What the local endpoint did with one event: its status, or why it could not be reached. */
type Outcome = { status: number } | { error: string };

/** Posts one event to the local URL as the service's sender would: the same body, Standard Webhooks headers. */
async function forward(url: string, secret: string, event: Json): Promise<Outcome> {
  const body = webhookPayload({ type: event.type, createdAt: Date.parse(event.createdAt), data: event.data });
  try {
    const response = await fetch(url, {
      method: "POST",
      headers: { "Content-Type": "application/json", "User-Agent": "express-crypto-pay-cli", ...webhookHeaders({ id: event.id, body }, secret) },
      body,
      // Not the interrupt's signal: Ctrl-C lets the event in flight finish.
      signal: AbortSignal.timeout(15_000),
      redirect: "manual",
    });
    await response.body?.cancel();
    return { status: response.status };
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause;
    return { error: cause?.code ?? (error as Error).message };
  }
}

/**
 * `listen --forward-to URL`: follows the service's event log (GET /v1/events, polled from the
 * moment it starts) and posts each event, signed with the secret it prints, to a local URL.
 * Polling, not a webhook endpoint: the service needs no route to the developer's machine.
 */
export const listenCommand: RemoteCommand = {
  remote: true,
  name: NAME,
  summary: "Forward the service's test events, signed, to a local URL",
  usage: "listen --forward-to URL [--secret whsec_...] [--interval MS]",
  help: [
    "Follows the events of the key's merchant in test mode from now on and posts each one to",
    "--forward-to, as the service's webhook sender would: the same JSON body, signed with Standard",
    "Webhooks headers (webhook-id is the event's id). Build your webhookHandler with the whsec_",
    "secret printed at start (a new one each run, or the one given with --secret). Prints one line",
    "per event: its type, its id and your endpoint's answer. Events are not retried: replay one with",
    "trigger, or redeliver it from the service. It polls GET /v1/events every --interval ms",
    "(default 1000), so the service may be on another machine. Ctrl-C stops it.",
  ].join("\n"),
  flags: { "forward-to": { type: "string" }, secret: { type: "string" }, interval: { type: "string" } },
  args: [],
  check: ({ values }) => void listenInput(values),
  async run({ api, values, print, json, signal }) {
    const { forwardTo, secret: given, intervalMs } = listenInput(values);
    const secret = given ?? generateWebhookSecret();
    let cursor: string = (await api.get("/v1/events", { after: "now" })).nextCursor;
    if (json) print(JSON.stringify({ ready: true, forwardTo, secret }));
    else {
      print(`Ready: forwarding test events of ${api.target.baseUrl} to ${forwardTo}`);
      print(`Your webhook signing secret is ${secret} (Ctrl-C to stop)`);
    }
    let forwarded = 0;
    let unreachable = false;
    while (!signal.aborted) {
      let page: Json;
      try {
        page = await api.get("/v1/events", { after: cursor, limit: PAGE });
      } catch (error) {
        // A service that restarts, drops a request or asks to slow down: say so once, and keep trying.
        if (!(error instanceof UnreachableError || (error instanceof RemoteError && (error.status >= 500 || error.status === 429)))) throw error;
        if (!unreachable) print(`${json ? JSON.stringify({ warning: error.message }) : `warning: ${error.message}; retrying`}`);
        unreachable = true;
        await sleep(intervalMs * 2, undefined, { signal }).catch(() => undefined);
        continue;
      }
      if (unreachable && !json) print("the service answers again");
      unreachable = false;
      for (const event of page.data as Json[]) {
        if (signal.aborted) break;
        const outcome = await forward(forwardTo, secret, event);
        forwarded++;
        const time = new Date().toISOString().slice(11, 19);
        if (json) print(JSON.stringify({ id: event.id, type: event.type, createdAt: event.createdAt, ...outcome }));
        else print(`${time}  ${event.type.padEnd(26)} ${event.id}  -> ${"status" in outcome ? outcome.status : `not delivered: ${outcome.error}`}`);
      }
      cursor = page.nextCursor;
      if (page.data.length < PAGE) await sleep(intervalMs, undefined, { signal }).catch(() => undefined);
    }
    return { exitCode: 0, json: { stopped: true, forwarded }, text: `stopped: ${forwarded} event(s) forwarded` };
  },
};
