import { html, type SafeHtml } from "../../html/escape";
import { csrfField, modeTag, shortTime } from "./parts";
import { deliveriesTable, EVENT_GROUPS, endpointHref, eventsText, noticeOf, secretCard, type DeliveryRow, type EndpointRow } from "./webhooks";

/** What an endpoint's page shows. */
export interface EndpointDetail {
  base: string;
  endpoint: EndpointRow;
  /** Its deliveries, newest first (one page). */
  deliveries: readonly DeliveryRow[];
  nextHref: string | null;
  /** The CSRF token of the action forms; null for viewers, who get none. */
  csrf: string | null;
  message: { tone: "ok" | "error"; text: string } | null;
  /** A signing secret just created (by registering or rotating): shown on this answer only. */
  secret: { value: string; title: string } | null;
}

/** One action button in its own form, carrying the endpoint's mode (the action runs in that mode only), after any `fields`. */
function actionForm(detail: EndpointDetail, csrf: string, action: string, label: string, danger = false, fields: SafeHtml | null = null): SafeHtml {
  return html`<form method="post" action="${endpointHref(detail.base, detail.endpoint.id)}/${action}">${csrfField(csrf)}<input type="hidden" name="mode" value="${modeOf(detail.endpoint)}">${fields}<button type="submit"${danger ? html` class="danger"` : null}>${label}</button></form>`;
}

/** The test event's type: any type the service sends, payment.created first. */
function testTypeField(): SafeHtml {
  return html`<label>Event type<select name="type">${EVENT_GROUPS.map(
    ([group, types]) =>
      html`<optgroup label="${group}">${types.map((type) => html`<option value="${type}"${type === "payment.created" ? html` selected` : null}>${type}</option>`)}</optgroup>`,
  )}</select></label>`;
}

function modeOf(endpoint: EndpointRow): "live" | "test" {
  return endpoint.livemode ? "live" : "test";
}

/** The endpoint's settings and state, its actions for admins, and its latest deliveries. */
export function endpointBody(detail: EndpointDetail): SafeHtml {
  const { endpoint, csrf } = detail;
  const enabled = endpoint.status === "enabled";
  return html`${noticeOf(detail.message)}
${detail.secret ? secretCard(detail.secret.value, detail.secret.title) : null}
<div class="grid two">
<section class="card" aria-labelledby="summary-title"><h2 id="summary-title">Endpoint</h2>
<dl class="facts">
<dt>URL</dt><dd class="mono">${endpoint.url}</dd>
<dt>Mode</dt><dd>${modeTag(modeOf(endpoint))}</dd>
<dt>State</dt><dd data-endpoint-status>${endpoint.status}${endpoint.disabledReason ? html` <span class="muted">(${endpoint.disabledReason})</span>` : null}</dd>
<dt>Event types</dt><dd>${eventsText(endpoint.events)}</dd>
<dt>Id</dt><dd class="mono">${endpoint.id}</dd>
<dt>Created</dt><dd>${endpoint.createdAt ? shortTime(endpoint.createdAt) : "–"}</dd>
</dl></section>
<section class="card" aria-labelledby="actions-title"><h2 id="actions-title">Actions</h2>
${
  csrf === null
    ? html`<p class="muted">Viewers cannot change endpoints.</p>`
    : html`<div class="actions">
${enabled ? actionForm(detail, csrf, "test", "Send a test event", false, testTypeField()) : null}
${actionForm(detail, csrf, "rotate", "Rotate the signing secret")}
${enabled ? actionForm(detail, csrf, "disable", "Disable endpoint", true) : actionForm(detail, csrf, "enable", "Enable endpoint")}
<a class="button danger" href="${endpointHref(detail.base, endpoint.id)}/delete">Delete endpoint…</a>
</div>
<p class="muted">${
        enabled
          ? "The test event is an event of the chosen type about a sample record, marked test, sent whatever types the endpoint receives. After a rotation the previous secret keeps signing alongside the new one for the rotation overlap (24 hours unless your host set another)."
          : "A disabled endpoint gets no events. Enabling it delivers new events again; what failed meanwhile can be redelivered."
      }</p>`
}
</section>
</div>
<section class="card" aria-labelledby="deliveries-title"><h2 id="deliveries-title">Recent deliveries</h2>
${deliveriesTable(detail.base, detail.deliveries, null, false)}
<div class="pager">${detail.nextHref ? html`<a href="${detail.nextHref}" rel="next">Older deliveries</a>` : html`<span class="muted">End of the list.</span>`}</div>
</section>`;
}

/** The confirmation step before deleting an endpoint: what deleting does, and the one button that does it. */
export function deleteEndpointBody(base: string, endpoint: EndpointRow, csrf: string): SafeHtml {
  return html`<section class="card" aria-labelledby="confirm-title"><h2 id="confirm-title">Delete <span class="mono">${endpoint.url}</span>?</h2>
<p>${modeTag(modeOf(endpoint))} It gets no more events, its pending deliveries are marked failed, and its delivery log stays. This cannot be undone: to pause it, disable it instead.</p>
<div class="actions"><form method="post" action="${endpointHref(base, endpoint.id)}/delete">${csrfField(csrf)}<input type="hidden" name="mode" value="${modeOf(endpoint)}"><button type="submit" class="danger">Delete this endpoint</button></form>
<a href="${endpointHref(base, endpoint.id)}">Cancel</a></div>
</section>`;
}
