import { html, type SafeHtml } from "../../html/escape";
import { csrfField, modeTag, shortTime } from "./parts";
import { deliveryHref, endpointHref, lastAnswer, noticeOf, type DeliveryRow, type EndpointRow } from "./webhooks";

/** What a delivery's page shows. */
export interface DeliveryDetail {
  base: string;
  delivery: DeliveryRow;
  /** Its endpoint; null when it was deleted since, or for the host's own handlers. */
  endpoint: EndpointRow | null;
  /** Whether the delivery went to the host's in-process handlers (`on`), not to a URL. */
  inProcess: boolean;
  csrf: string | null;
  message: { tone: "ok" | "error"; text: string } | null;
}

/** An ISO time to the second, as "2026-03-01 12:00:05 UTC": retries come seconds apart. */
function preciseTime(iso: string): SafeHtml {
  return html`<time datetime="${iso}">${iso.slice(0, 10)} ${iso.slice(11, 19)} UTC</time>`;
}

/** A duration in ms as people read it: "840 ms", "1.2 s". */
function duration(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`;
}

/** The event, its endpoint and state, a redeliver button for admins, then every attempt with its answer and duration. */
export function deliveryBody(detail: DeliveryDetail): SafeHtml {
  const { delivery, endpoint } = detail;
  const mode = delivery.livemode ? "live" : "test";
  const endpointCell = detail.inProcess
    ? html`The host's own handlers`
    : endpoint
      ? html`<a class="mono" href="${endpointHref(detail.base, endpoint.id)}">${endpoint.url}</a>`
      : html`<span class="mono">${delivery.endpointId}</span> <span class="muted">(deleted)</span>`;
  return html`${noticeOf(detail.message)}
<div class="grid two">
<section class="card" aria-labelledby="summary-title"><h2 id="summary-title">Delivery</h2>
<dl class="facts">
<dt>Event</dt><dd><code>${delivery.eventType}</code></dd>
<dt>Mode</dt><dd>${modeTag(mode)}</dd>
<dt>Endpoint</dt><dd>${endpointCell}</dd>
<dt>Status</dt><dd data-delivery-status>${delivery.status}</dd>
<dt>Last answer</dt><dd>${lastAnswer(delivery)}</dd>
${delivery.nextAttemptAt ? html`<dt>Next attempt</dt><dd>${preciseTime(delivery.nextAttemptAt)}</dd>` : null}
<dt>Webhook id</dt><dd class="mono">${delivery.id}</dd>
<dt>Event id</dt><dd class="mono">${delivery.eventId}</dd>
<dt>Created</dt><dd>${delivery.createdAt ? shortTime(delivery.createdAt) : "–"}</dd>
</dl></section>
<section class="card" aria-labelledby="actions-title"><h2 id="actions-title">Redeliver</h2>
${
  detail.csrf === null
    ? html`<p class="muted">Viewers cannot redeliver.</p>`
    : html`<p class="muted">Sends the same body again with the same webhook id: a receiver that processed it already skips it.</p>
<form method="post" action="${deliveryHref(detail.base, delivery.id)}/redeliver">${csrfField(detail.csrf)}<input type="hidden" name="mode" value="${mode}"><input type="hidden" name="back" value="delivery"><button type="submit">Redeliver</button></form>`
}
</section>
</div>
<section class="card" aria-labelledby="attempts-title"><h2 id="attempts-title">Attempts</h2>
${
  delivery.attempts.length === 0
    ? html`<p class="muted">No attempts yet.</p>`
    : // Focusable, so a keyboard can scroll it on a phone: it holds no link to focus.
      html`<div class="table-wrap" tabindex="0" role="region" aria-labelledby="attempts-title"><table><thead><tr><th scope="col">#</th><th scope="col">Time</th><th scope="col">Answer</th><th scope="col">Error</th><th scope="col">Duration</th></tr></thead><tbody>${delivery.attempts.map(
        (attempt, index) =>
          html`<tr data-attempt><td class="num">${index + 1}</td><td class="nowrap">${attempt.at ? preciseTime(attempt.at) : "–"}</td><td data-attempt-status>${attempt.statusCode ?? "No answer"}</td><td>${attempt.error ?? "–"}</td><td class="num" data-attempt-duration>${duration(attempt.durationMs)}</td></tr>`,
      )}</tbody></table></div>`
}
</section>`;
}
