import { html, type SafeHtml } from "../../html/escape";
import type { DashboardUser } from "../options";

/** The start page of a user who may see every merchant (or none): open one by its id. */
export function chooseBody(base: string, user: DashboardUser): SafeHtml {
  if (user.merchants !== "all") return html`<p class="notice warn">You have no merchant to see.</p>`;
  return html`<section class="card"><form class="stack" method="get" action="${base}/switch"><label>Merchant id<input name="merchant" required autocomplete="off"></label><button type="submit">Open</button></form></section>`;
}
