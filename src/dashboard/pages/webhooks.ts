import { CONVERSION_EVENT_TYPES } from "../../core/exchanges/records";
import { PAYMENT_EVENT_TYPES } from "../../core/invoices/records";
import { PAYOUT_EVENT_TYPES } from "../../core/payouts/records";
import { REFUND_EVENT_TYPES } from "../../core/refunds/records";
import { SUBSCRIPTION_EVENT_TYPES } from "../../core/subscriptions/records";
import type { Mode } from "../../core/merchants/records";
import { html, type SafeHtml } from "../../html/escape";
import { csrfField, onceField, modeTag, shortTime } from "./parts";

/** A webhook endpoint as GET /v1/webhook-endpoints answers it (never with its secret). */
export interface EndpointRow {
  id: string;
  livemode: boolean;
  url: string;
  /** Event types it receives; null for all. */
  events: string[] | null;
  status: string;
  disabledReason: string | null;
  createdAt: string | null;
  updatedAt: string | null;
}

/** One attempt of a delivery, as the /v1 delivery log answers it. */
export interface AttemptRow {
  at: string | null;
  statusCode: number | null;
  durationMs: number;
  error: string | null;
}

/** A delivery as GET /v1/webhook-deliveries answers it. */
export interface DeliveryRow {
  id: string;
  livemode: boolean;
  endpointId: string;
  eventId: string;
  eventType: string;
  status: string;
  attemptCount: number;
  nextAttemptAt: string | null;
  lastStatusCode: number | null;
  lastError: string | null;
  attempts: AttemptRow[];
  createdAt: string | null;
}

/** What an admin typed into the new-endpoint form, kept when the API refuses it. */
export interface EndpointDraft {
  url: string;
  mode: Mode;
  events: readonly string[];
}

/** What the webhooks page shows. */
export interface WebhooksData {
  base: string;
  endpoints: readonly EndpointRow[];
  deliveries: readonly DeliveryRow[];
  status: string | undefined;
  nextHref: string | null;
  csrf: string | null;
  message: { tone: "ok" | "error"; text: string } | null;
  /** The new-endpoint form's values after a refusal; empty otherwise. */
  draft: EndpointDraft | null;
}

/** The event catalogue in the groups the new-endpoint form (and the test event's select) shows it. */
export const EVENT_GROUPS = [
  ["Payments", PAYMENT_EVENT_TYPES],
  ["Payouts", PAYOUT_EVENT_TYPES],
  ["Refunds", REFUND_EVENT_TYPES],
  ["Conversions", CONVERSION_EVENT_TYPES],
  ["Subscriptions", SUBSCRIPTION_EVENT_TYPES],
] as const;

/** The page of one endpoint. */
export function endpointHref(base: string, id: string): string {
  return `${base}/webhooks/endpoints/${encodeURIComponent(id)}`;
}

/** The page of one delivery. */
export function deliveryHref(base: string, id: string): string {
  return `${base}/webhooks/deliveries/${encodeURIComponent(id)}`;
}

/** A notice at the top of a page after an action. */
export function noticeOf(message: { tone: "ok" | "error"; text: string } | null): SafeHtml | null {
  return message ? html`<p class="notice ${message.tone}" role="${message.tone === "error" ? "alert" : "status"}">${message.text}</p>` : null;
}

/** A new signing secret, on the one answer that shows it. */
export function secretCard(secret: string, title: string): SafeHtml {
  return html`<section class="card notice warn" aria-labelledby="secret-title"><h2 id="secret-title">${title}</h2>
<p>Copy it into your receiver now: it is never shown again.</p><p><code data-secret>${secret}</code></p></section>`;
}

/** A delivery's last answer as the tables show it: the status code, else why there was none. */
export function lastAnswer(delivery: DeliveryRow): string {
  return delivery.lastStatusCode === null ? (delivery.lastError ?? "–") : String(delivery.lastStatusCode);
}

/**
 * The deliveries table of the webhooks page and an endpoint's page (where every row has the
 * endpoint's mode, so `showMode` is off); each row opens the delivery.
 */
export function deliveriesTable(base: string, rows: readonly DeliveryRow[], redeliverCsrf: string | null, showMode = true): SafeHtml {
  if (rows.length === 0) return html`<p class="muted">No deliveries.</p>`;
  return html`<div class="table-wrap"><table><thead><tr><th scope="col">Event</th>${showMode ? html`<th scope="col">Mode</th>` : null}<th scope="col">Status</th><th scope="col">Attempts</th><th scope="col">Last answer</th><th scope="col">Created</th>${redeliverCsrf ? html`<th scope="col"><span class="muted">Action</span></th>` : null}</tr></thead><tbody>${rows.map(
    (delivery) =>
      html`<tr data-delivery="${delivery.id}"><td><a href="${deliveryHref(base, delivery.id)}"><code>${delivery.eventType}</code></a></td>${showMode ? html`<td>${modeTag(delivery.livemode ? "live" : "test")}</td>` : null}<td data-delivery-status>${delivery.status}</td><td class="num">${delivery.attemptCount}</td><td>${lastAnswer(delivery)}</td><td class="nowrap">${delivery.createdAt ? shortTime(delivery.createdAt) : ""}</td>${
        redeliverCsrf
          ? html`<td><form method="post" action="${deliveryHref(base, delivery.id)}/redeliver">${csrfField(redeliverCsrf)}<input type="hidden" name="mode" value="${delivery.livemode ? "live" : "test"}"><button type="submit" aria-label="Redeliver ${delivery.eventType} ${delivery.id}">Redeliver</button></form></td>`
          : null
      }</tr>`,
  )}</tbody></table></div>`;
}

/** The event types an endpoint receives, in words. */
export function eventsText(events: readonly string[] | null): SafeHtml {
  return events === null ? html`Every event type` : html`${events.map((type, index) => html`${index ? ", " : null}<code>${type}</code>`)}`;
}

/** The form that registers an endpoint: URL, mode and, optionally, the event types it receives. */
function newEndpointForm(base: string, csrf: string, draft: EndpointDraft | null): SafeHtml {
  const ticked = new Set(draft?.events ?? []);
  const mode = draft?.mode ?? "test";
  return html`<section class="card" aria-labelledby="new-endpoint-title"><h2 id="new-endpoint-title">Add an endpoint</h2>
<form class="fields" method="post" action="${base}/webhooks/endpoints">${csrfField(csrf)}${onceField()}
<label>URL<input name="url" type="url" inputmode="url" required maxlength="2048" autocomplete="off" placeholder="https://shop.example/webhooks" value="${draft?.url ?? ""}"></label>
<label>Mode<select name="mode"><option value="test"${mode === "test" ? html` selected` : null}>test</option><option value="live"${mode === "live" ? html` selected` : null}>live</option></select></label>
<fieldset><legend>Event types</legend><p class="muted">Leave every box empty to receive every event type, including ones added later.</p>
<div class="check-groups">${EVENT_GROUPS.map(
    ([label, types]) =>
      html`<fieldset><legend>${label}</legend><div class="checks">${types.map(
        (type) => html`<label><input type="checkbox" name="events" value="${type}"${ticked.has(type) ? html` checked` : null}><code>${type}</code></label>`,
      )}</div></fieldset>`,
  )}</div></fieldset>
<div><button type="submit">Add endpoint</button></div>
</form></section>`;
}

/** Endpoints of both modes (each opens its page), the new-endpoint form for admins, then the deliveries. */
export function webhooksBody(data: WebhooksData): SafeHtml {
  const option = (value: string, label = value) => html`<option value="${value}"${value === (data.status ?? "") ? html` selected` : null}>${label}</option>`;
  return html`${noticeOf(data.message)}
<section class="card" aria-labelledby="endpoints-title"><h2 id="endpoints-title">Endpoints</h2>
${
  data.endpoints.length === 0
    ? html`<p class="muted">No webhook endpoints.</p>`
    : html`<div class="table-wrap"><table><thead><tr><th scope="col">URL</th><th scope="col">Mode</th><th scope="col">State</th><th scope="col">Event types</th></tr></thead><tbody>${data.endpoints.map(
        (endpoint) =>
          html`<tr data-endpoint="${endpoint.id}"><td><a class="mono" href="${endpointHref(data.base, endpoint.id)}">${endpoint.url}</a></td><td>${modeTag(endpoint.livemode ? "live" : "test")}</td><td>${endpoint.status}${endpoint.disabledReason ? html` <span class="muted">(${endpoint.disabledReason})</span>` : null}</td><td>${endpoint.events === null ? "All" : endpoint.events.length}</td></tr>`,
      )}</tbody></table></div>`
}
${data.csrf ? null : html`<p class="muted">Viewers cannot add or change endpoints.</p>`}
</section>
${data.csrf ? newEndpointForm(data.base, data.csrf, data.draft) : null}
<section class="card" aria-labelledby="deliveries-title"><h2 id="deliveries-title">Deliveries</h2>
<form class="filters" method="get" action="${data.base}/webhooks"><label>Status<select name="status">${option("", "Any")}${option("pending")}${option("succeeded")}${option("failed")}</select></label><button type="submit">Filter</button></form>
${deliveriesTable(data.base, data.deliveries, data.csrf)}
<div class="pager">${data.nextHref ? html`<a href="${data.nextHref}" rel="next">Older deliveries</a>` : html`<span class="muted">End of the list.</span>`}</div>
</section>`;
}
