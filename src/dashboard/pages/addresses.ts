import type { AllowedAddress } from "../../core/payouts/allowlist";
import { html, type SafeHtml } from "../../html/escape";
import type { Notice } from "../kit";
import { csrfField, modeTag, shortTime } from "./parts";

/** What the payout addresses page shows. */
export interface AddressesData {
  base: string;
  /** Whether the merchant's allowlist is on. */
  enabled: boolean;
  /** Hours from an approval until the address is usable. */
  coolingOffHours: number;
  /** Both modes' addresses, oldest first. */
  addresses: readonly AllowedAddress[];
  /** The network codes an address may be proposed on, in currency-list order. */
  networks: readonly string[];
  /** The CSRF token of the forms; null for viewers, who get none. */
  csrf: string | null;
  message: Notice | null;
}

/** Where an address stands, in words: awaiting approval, cooling off until a time, or usable. */
function stateText(entry: AllowedAddress): string {
  if (entry.state === "awaiting_approval") return "Awaiting approval";
  if (entry.state === "cooling_off") return `Cooling off until ${shortTime(entry.usableAt!)}`;
  return "Usable";
}

/** One address row, with approve and remove buttons for admins. */
function addressRow(data: AddressesData, entry: AllowedAddress): SafeHtml {
  const action = (verb: string) => `${data.base}/addresses/${encodeURIComponent(entry.id)}/${verb}`;
  const name = entry.label ?? entry.address;
  return html`<tr data-address="${entry.id}">
<td class="addr"><span class="mono">${entry.address}</span>${entry.label ? html`<br><span class="muted">${entry.label}</span>` : null}</td>
<td>${entry.network}</td>
<td>${modeTag(entry.mode)}</td>
<td data-state="${entry.state}">${stateText(entry)}</td>
<td>${entry.proposedBy}<br><span class="muted">${shortTime(entry.createdAt)}</span></td>
<td>${entry.approvedBy ? html`${entry.approvedBy}<br><span class="muted">${shortTime(entry.approvedAt!)}</span>` : "–"}</td>
${
  data.csrf
    ? html`<td><div class="actions">${
        entry.state === "awaiting_approval"
          ? html`<form method="post" action="${action("approve")}">${csrfField(data.csrf)}<button type="submit" aria-label="Approve ${name} (${entry.network}, ${entry.mode})">Approve</button></form>`
          : null
      }<form method="post" action="${action("remove")}">${csrfField(data.csrf)}<button type="submit" class="danger" aria-label="Remove ${name} (${entry.network}, ${entry.mode})">Remove</button></form></div></td>`
    : null
}
</tr>`;
}

/**
 * The allowlist's switch, the addresses of both modes with their state, and for admins the
 * forms: turn it on or off, propose an address, approve one (someone else's), remove one.
 */
export function addressesBody(data: AddressesData): SafeHtml {
  const hours = `${data.coolingOffHours} hour${data.coolingOffHours === 1 ? "" : "s"}`;
  return html`${data.message ? html`<p class="notice ${data.message.tone}" role="status">${data.message.text}</p>` : null}
<section class="card" aria-labelledby="allowlist-title"><h2 id="allowlist-title">Allowlist</h2>
<p data-allowlist="${data.enabled ? "on" : "off"}"><strong>${data.enabled ? "On" : "Off"}.</strong> ${
    data.enabled
      ? "Payouts, withdrawals and refunds go only to the usable addresses below, in their mode and on their network."
      : "Payouts may go to any valid address. The addresses below apply once the allowlist is on."
  }</p>
<p class="muted">A new address needs an admin's approval (not the one who proposed it), then becomes usable ${hours} later. A removal applies at once.</p>
${
  data.csrf
    ? html`<form method="post" action="${data.base}/addresses/allowlist">${csrfField(data.csrf)}<input type="hidden" name="enabled" value="${data.enabled ? "off" : "on"}"><button type="submit"${data.enabled ? html` class="danger"` : null}>${data.enabled ? "Turn the allowlist off" : "Turn the allowlist on"}</button></form>`
    : null
}
</section>
<section class="card" aria-labelledby="addresses-title"><h2 id="addresses-title">Addresses</h2>
${
  data.addresses.length === 0
    ? html`<p class="muted">No addresses yet.</p>`
    : // Focusable so that a keyboard can scroll it on a phone, where it is wider than the screen.
      html`<div class="table-wrap" tabindex="0" role="region" aria-labelledby="addresses-title"><table><thead><tr><th scope="col">Address</th><th scope="col">Network</th><th scope="col">Mode</th><th scope="col">State</th><th scope="col">Proposed</th><th scope="col">Approved</th>${
        data.csrf ? html`<th scope="col"><span class="muted">Action</span></th>` : null
      }</tr></thead><tbody>${data.addresses.map((entry) => addressRow(data, entry))}</tbody></table></div>`
}
</section>
${
  data.csrf
    ? html`<section class="card" aria-labelledby="propose-title"><h2 id="propose-title">Propose an address</h2>
<form class="stack" method="post" action="${data.base}/addresses">${csrfField(data.csrf)}
<label>Mode<select name="mode"><option value="live">live</option><option value="test">test</option></select></label>
<label>Network<select name="network">${data.networks.map((network) => html`<option value="${network}">${network}</option>`)}</select></label>
<label class="wide">Address<input name="address" required autocomplete="off" spellcheck="false"></label>
<label>Label<input name="label" maxlength="100" autocomplete="off"></label>
<button type="submit">Propose</button></form></section>`
    : html`<p class="muted">Viewers cannot change the allowlist.</p>`
}`;
}
