import type { ApiKeySummary } from "../../core/merchants/merchants";
import { html, type SafeHtml } from "../../html/escape";
import { csrfField, modeTag } from "./parts";

/** What the keys page shows; `issued` is a new key's plaintext, shown this once. */
export interface KeysData {
  base: string;
  keys: readonly ApiKeySummary[];
  csrf: string | null;
  issued: string | null;
  message: { tone: "ok" | "error"; text: string } | null;
}

/** The merchant's keys without secrets, the issue form, and a revoke button per active key (admins). */
export function keysBody(data: KeysData): SafeHtml {
  return html`${data.message ? html`<p class="notice ${data.message.tone}" role="status">${data.message.text}</p>` : null}
${
  data.issued
    ? html`<section class="card notice warn" aria-labelledby="issued-title"><h2 id="issued-title">New key</h2><p>Copy it now: it is never shown again.</p><p><code data-issued-key>${data.issued}</code></p></section>`
    : null
}
<section class="card" aria-labelledby="keys-title"><h2 id="keys-title">API keys</h2>
<div class="table-wrap"><table><thead><tr><th scope="col">Key</th><th scope="col">Mode</th><th scope="col">Created</th><th scope="col">State</th>${data.csrf ? html`<th scope="col"><span class="muted">Action</span></th>` : null}</tr></thead><tbody>
${data.keys.map(
  (key) =>
    html`<tr data-key="${key.id}"><td class="mono nowrap">${key.prefix}…</td><td>${modeTag(key.mode)}</td><td>${key.createdAt.slice(0, 10)}</td><td>${key.revokedAt ? "Revoked" : "Active"}</td>${
      data.csrf
        ? html`<td>${
            key.revokedAt
              ? null
              : html`<form method="post" action="${data.base}/keys/${encodeURIComponent(key.id)}/revoke">${csrfField(data.csrf)}<button type="submit" class="danger" aria-label="Revoke ${key.prefix}">Revoke</button></form>`
          }</td>`
        : null
    }</tr>`,
)}
</tbody></table></div>
${
  data.csrf
    ? html`<form class="stack" method="post" action="${data.base}/keys">${csrfField(data.csrf)}<label>Mode<select name="mode"><option value="test">test</option><option value="live">live</option></select></label><button type="submit">Issue a key</button></form>`
    : html`<p class="muted">Viewers cannot issue or revoke keys.</p>`
}
</section>`;
}
