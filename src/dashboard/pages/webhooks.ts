import { html, type SafeHtml } from "../../http/pay-page/escape";
import { csrfField, modeTag, shortTime } from "./parts";

/** A webhook endpoint as GET /v1/webhook-endpoints answers it. */
export interface EndpointRow {
  id: string;
  livemode: boolean;
  url: string;
  status: string;
  disabledReason: string | null;
}

/** A delivery as GET /v1/webhook-deliveries answers it. */
export interface DeliveryRow {
  id: string;
  livemode: boolean;
  endpointId: string;
  eventType: string;
  status: string;
  attemptCount: number;
  lastStatusCode: number | null;
  lastError: string | null;
  createdAt: string | null;
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
}

/** Endpoints of both modes, then the deliveries newest first with a redeliver button for admins. */
export function webhooksBody(data: WebhooksData): SafeHtml {
  const option = (value: string, label = value) => html`<option value="${value}"${value === (data.status ?? "") ? html` selected` : null}>${label}</option>`;
  return html`${data.message ? html`<p class="notice ${data.message.tone}" role="status">${data.message.text}</p>` : null}
<section class="card" aria-labelledby="endpoints-title"><h2 id="endpoints-title">Endpoints</h2>
${
  data.endpoints.length === 0
    ? html`<p class="muted">No webhook endpoints.</p>`
    : html`<div class="table-wrap"><table><thead><tr><th scope="col">URL</th><th scope="col">Mode</th><th scope="col">State</th></tr></thead><tbody>${data.endpoints.map(
        (endpoint) =>
          html`<tr data-endpoint="${endpoint.id}"><td class="mono">${endpoint.url}</td><td>${modeTag(endpoint.livemode ? "live" : "test")}</td><td>${endpoint.status}${endpoint.disabledReason ? html` <span class="muted">(${endpoint.disabledReason})</span>` : null}</td></tr>`,
      )}</tbody></table></div>`
}
</section>
<section class="card" aria-labelledby="deliveries-title"><h2 id="deliveries-title">Deliveries</h2>
<form class="filters" method="get" action="${data.base}/webhooks"><label>Status<select name="status">${option("", "Any")}${option("pending")}${option("succeeded")}${option("failed")}</select></label><button type="submit">Filter</button></form>
${
  data.deliveries.length === 0
    ? html`<p class="muted">No deliveries.</p>`
    : html`<div class="table-wrap"><table><thead><tr><th scope="col">Event</th><th scope="col">Mode</th><th scope="col">Status</th><th scope="col">Attempts</th><th scope="col">Last answer</th><th scope="col">Created</th>${data.csrf ? html`<th scope="col"><span class="muted">Action</span></th>` : null}</tr></thead><tbody>${data.deliveries.map(
        (delivery) =>
          html`<tr data-delivery="${delivery.id}"><td><code>${delivery.eventType}</code></td><td>${modeTag(delivery.livemode ? "live" : "test")}</td><td data-delivery-status>${delivery.status}</td><td class="num">${delivery.attemptCount}</td><td>${delivery.lastStatusCode ?? delivery.lastError ?? "–"}</td><td>${delivery.createdAt ? shortTime(delivery.createdAt) : ""}</td>${
            data.csrf
              ? html`<td><form method="post" action="${data.base}/webhooks/deliveries/${encodeURIComponent(delivery.id)}/redeliver">${csrfField(data.csrf)}<button type="submit" aria-label="Redeliver ${delivery.eventType} ${delivery.id}">Redeliver</button></form></td>`
              : null
          }</tr>`,
      )}</tbody></table></div>`
}
<div class="pager">${data.nextHref ? html`<a href="${data.nextHref}" rel="next">Older deliveries</a>` : html`<span class="muted">End of the list.</span>`}</div>
</section>`;
}
