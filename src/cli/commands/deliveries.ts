import type { DeliverySummary } from "../../operator";
import type { PaymentAdmin } from "../../index";
import type { Command, CommandInput } from "../command";
import { stringFlag } from "../command";
import { UsageError } from "../errors";
import { ok, table } from "../output";
import { pageFlags, pageOptions } from "./paging";

const row = (delivery: DeliverySummary) => [
  delivery.id,
  delivery.merchantId,
  delivery.mode,
  delivery.eventType,
  delivery.status,
  delivery.attempts,
  delivery.lastStatusCode,
  delivery.nextAttemptAt,
];

const HEADERS = ["ID", "MERCHANT", "MODE", "EVENT", "STATUS", "ATTEMPTS", "LAST CODE", "NEXT ATTEMPT"];

/** The flags of `deliveries list`, as `listDeliveries` takes them. */
function listInput(values: CommandInput["values"]): Parameters<PaymentAdmin["listDeliveries"]>[0] {
  const mode = stringFlag(values, "mode");
  if (mode !== undefined && mode !== "test" && mode !== "live") throw new UsageError('--mode must be "test" or "live"', "deliveries list");
  const merchantId = stringFlag(values, "merchant");
  return {
    ...pageOptions(values, "deliveries list"),
    ...(values.failing === true ? { failing: true } : {}),
    ...(merchantId === undefined ? {} : { merchantId }),
    ...(mode === undefined ? {} : { mode }),
  };
}

/** `deliveries list [--failing] [--merchant ID] [--mode test|live]`. */
export const deliveriesList: Command = {
  name: "deliveries list",
  summary: "List webhook deliveries of every merchant, newest first",
  usage: "deliveries list [--failing] [--merchant ID] [--mode test|live] [--limit N] [--after ID]",
  help: [
    "Lists the webhook delivery log across merchants, newest first, 100 at a time (--limit up to 1000).",
    "--failing: only deliveries that failed for good or wait for a retry after a failed attempt.",
  ].join("\n"),
  flags: { failing: { type: "boolean" }, merchant: { type: "string" }, mode: { type: "string" }, ...pageFlags },
  args: [],
  check: ({ values }) => void listInput(values),
  async run({ payments, values }) {
    const page = await payments.admin.listDeliveries(listInput(values));
    const more = page.hasMore ? `\nmore: --after ${page.nextCursor}` : "";
    return ok(page, page.data.length === 0 ? "no deliveries" : `${table(HEADERS, page.data.map(row))}${more}`);
  },
};

/** `deliveries redeliver DELIVERY_ID`. */
export const deliveriesRedeliver: Command = {
  name: "deliveries redeliver",
  summary: "Queue a webhook delivery again",
  usage: "deliveries redeliver DELIVERY_ID",
  help: [
    "Queues the delivery again with the same webhook-id, its attempts starting over, for the running",
    "service's sender to send (as POST /v1/webhook-deliveries/:id/redeliver does). A pending delivery",
    "is left as it is. Exit 1 when it does not exist or its endpoint was deleted or disabled.",
  ].join("\n"),
  flags: {},
  args: ["DELIVERY_ID"],
  async run({ payments, args }) {
    const delivery = await payments.admin.redeliver(args[0]!);
    return ok(delivery, `delivery ${delivery.id} queued (${delivery.status}, next attempt ${delivery.nextAttemptAt ?? "-"})`);
  },
};
