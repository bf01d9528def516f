import { EVENT_TYPES } from "../../storage";
import type { EventType } from "../../index";
import { stringFlag } from "../command";
import { UsageError } from "../errors";
import type { Json, RemoteApi } from "../remote/api";
import type { RemoteCommand, RemoteInput } from "../remote/command";
import { Sandbox } from "../remote/sandbox";
import { RECIPES } from "./trigger-recipes";

const NAME = "trigger";
const DECIMAL = /^(0|[1-9]\d*)(\.\d+)?$/;

/** The event type and flags of `trigger`, checked before anything is sent. */
function triggerInput({ values, args }: Pick<RemoteInput, "values" | "args">) {
  const type = args[0]!;
  if (!(EVENT_TYPES as readonly string[]).includes(type)) {
    throw new UsageError(`unknown event type ${JSON.stringify(type)}; the service sends:\n  ${EVENT_TYPES.join("\n  ")}`, NAME);
  }
  const amount = stringFlag(values, "amount") ?? "100";
  const payoutAmount = stringFlag(values, "payout-amount");
  for (const [flag, value] of [["--amount", amount] as const, ["--payout-amount", payoutAmount] as const]) {
    if (value !== undefined && !DECIMAL.test(value)) throw new UsageError(`${flag} must be a decimal number such as 25 or 12.5`, NAME);
  }
  const timeout = stringFlag(values, "timeout") ?? "60";
  if (!/^[0-9]+$/.test(timeout) || Number(timeout) < 1 || Number(timeout) > 3600) throw new UsageError("--timeout must be 1 to 3600 (seconds)", NAME);
  return {
    type: type as EventType,
    currency: (stringFlag(values, "currency") ?? "USDT").toUpperCase(),
    chain: (stringFlag(values, "chain") ?? "TRX").toUpperCase(),
    amount,
    payoutAmount,
    address: stringFlag(values, "address"),
    timeoutMs: Number(timeout) * 1000,
  };
}

/** The events of the log after `cursor`, to its end. */
async function eventsAfter(api: RemoteApi, cursor: string): Promise<Json[]> {
  const events: Json[] = [];
  for (;;) {
    const page = await api.get("/v1/events", { after: cursor, limit: 100 });
    events.push(...page.data);
    if (page.data.length < 100) return events;
    cursor = page.nextCursor;
  }
}

/**
 * `trigger EVENT_TYPE`: drives the sandbox of a running service through the real path (a
 * payment, deposits, confirmations, expiry, withdrawals, refunds, conversions) until it records
 * an event of that type, then shows the events it recorded and the records it made.
 */
export const triggerCommand: RemoteCommand = {
  remote: true,
  name: NAME,
  summary: "Make the service produce an event for real, through the sandbox",
  usage: "trigger EVENT_TYPE [--currency USDT] [--chain TRX] [--amount 100] [--payout-amount N] [--address A] [--timeout S]",
  help: [
    "Drives the sandbox of the key's merchant through the same path a payer and the chain take, until",
    "the service records an event of EVENT_TYPE and sends its webhooks (and listen forwards it):",
    "  payment.*      a payment of --amount in --currency on --chain (default 100 USDT on TRX), with",
    "                 sandbox deposits, confirmations, drops and expiry as the type needs",
    "  payout.*       a paid payment funds a withdrawal of --payout-amount (default: the network's",
    "  refund.*       withdrawMin), or a refund of it, to --address (default: a sample address of",
    "                 the network); completed waits for the service to settle it, failed has",
    "                 the sandbox fail it; awaiting_approval needs a payout approval threshold below",
    "                 the amount, and rejected then waits for a person to reject it",
    "  conversion.*   a paid payment's coin converted at the pair's smallest amount",
    "Prints each step, the events recorded and the ids of the records made. Exit 1 when the service",
    "refused a step or did not record the event within --timeout seconds (default 60).",
    `Event types: ${EVENT_TYPES.join(", ")}.`,
  ].join("\n"),
  flags: {
    currency: { type: "string" },
    chain: { type: "string" },
    amount: { type: "string" },
    "payout-amount": { type: "string" },
    address: { type: "string" },
    timeout: { type: "string" },
  },
  args: ["EVENT_TYPE"],
  check: (input) => void triggerInput(input),
  async run({ api, values, args, print, json, signal }) {
    const input = triggerInput({ values, args });
    const say = json ? () => undefined : print;
    const start: string = (await api.get("/v1/events", { after: "now" })).nextCursor;
    const sandbox = new Sandbox(api, input.currency, input.chain, say, signal);
    const records = await RECIPES[input.type]({ ...input, sandbox, orderId: `trigger-${input.type}` });
    // Only the events about what this run made: the merchant's other activity meanwhile (an
    // earlier run's refund completing now) is not this run's doing and must not count for it.
    const made = new Set(Object.values(records));
    const events = (await eventsAfter(api, start))
      .map((event) => ({ id: event.id, type: event.type, resource: event.data.id as string }))
      .filter((event) => made.has(event.resource));
    const produced = events.filter((event) => event.type === input.type);
    const lines = [
      "",
      "events recorded:",
      ...events.map((event) => `  ${event.type.padEnd(26)} ${event.id}  (${event.resource})`),
      "records:",
      ...Object.entries(records).map(([what, id]) => `  ${what.padEnd(11)} ${id}`),
    ];
    if (produced.length === 0) {
      return {
        exitCode: 1,
        json: { type: input.type, produced: false, events, records },
        text: [...lines, "", `error: no ${input.type} event was recorded`].join("\n"),
      };
    }
    return {
      exitCode: 0,
      json: { type: input.type, produced: true, events, records },
      text: [...lines, "", `${input.type} produced: ${produced.map((event) => event.id).join(", ")}`].join("\n"),
    };
  },
};
