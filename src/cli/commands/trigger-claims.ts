import type { Json } from "../remote/api";
import { decimal, type Sandbox } from "../remote/sandbox";

/** What the refund claim recipes need of a recipe's input. */
interface ClaimInput {
  sandbox: Sandbox;
  amount: string;
  payoutAmount: string | undefined;
  orderId: string;
  /** Where the payer claims the refund to (the recipes' destination rule). */
  claimTo: (funding: Json) => string;
}

/** A refund made as a claim link (no address) of a paid payment: `refund.created`. */
async function claimLink(input: ClaimInput): Promise<{ funding: Json; refund: Json }> {
  const { sandbox } = input;
  const network = await sandbox.network();
  const amount = input.payoutAmount ?? decimal(network.withdrawMin);
  const funding = await sandbox.paidPayment(input.amount, input.orderId);
  const refund = await sandbox.api.post("/v1/refunds", { paymentId: funding.id, amount });
  sandbox.say(`created refund claim link ${refund.id} of ${amount} ${sandbox.currency} (${refund.status}): ${refund.claimUrl}`);
  return { funding, refund };
}

/**
 * Claims a link as the payer's browser does: opens the page for its form token, then posts the
 * confirm form from the page's own origin. Answers 303 to the page once claimed. The page is asked
 * for where the CLI reaches the router (`--url`), which a `claimUrl` built on the public origin may
 * not be from here.
 */
async function claimAsPayer(sandbox: Sandbox, refund: Json, address: string): Promise<void> {
  const path = new URL(refund.claimUrl).pathname;
  const url = new URL(`${sandbox.api.target.baseUrl}${path.slice(path.indexOf("/pay/refund/"))}`);
  const page = await fetch(url, { signal: AbortSignal.timeout(30_000) });
  const csrf = /name="csrf" value="([^"]+)"/.exec(await page.text())?.[1];
  if (!page.ok || !csrf) throw new Error(`the claim page of ${refund.id} answered ${page.status} without its form`);
  const form = new URLSearchParams({ step: "confirm", csrf, network: refund.chain, address, amount: refund.amount });
  const response = await fetch(url, {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: url.origin },
    body: form,
    redirect: "manual",
    signal: AbortSignal.timeout(30_000),
  });
  if (response.status !== 303) throw new Error(`claiming ${refund.id} on its page answered ${response.status}, not 303`);
  sandbox.say(`claimed ${refund.id} to ${address} on its page`);
}

/** The refund claim link recipes, by event type: each through the service's real path (the sandbox's expiry for `refund.expired`). */
export function refundClaimRecipes<I extends ClaimInput>(): Record<
  "refund.created" | "refund.claimed" | "refund.cancelled" | "refund.expired",
  (input: I) => Promise<Record<string, string>>
> {
  return {
    "refund.created": async (input) => {
      const { funding, refund } = await claimLink(input);
      return { payment: funding.id, refund: refund.id };
    },
    "refund.claimed": async (input) => {
      const { funding, refund } = await claimLink(input);
      await claimAsPayer(input.sandbox, refund, input.claimTo(funding));
      return { payment: funding.id, refund: refund.id };
    },
    "refund.cancelled": async (input) => {
      const { funding, refund } = await claimLink(input);
      const cancelled = await input.sandbox.api.post(`/v1/refunds/${refund.id}/cancel`, {});
      input.sandbox.say(`cancelled ${refund.id} (${cancelled.status})`);
      return { payment: funding.id, refund: refund.id };
    },
    "refund.expired": async (input) => {
      const { funding, refund } = await claimLink(input);
      const expired = await input.sandbox.api.post("/api/v1/sandbox/refund/expire", { refundId: refund.id });
      input.sandbox.say(`expired ${refund.id} in the sandbox (${expired.status})`);
      return { payment: funding.id, refund: refund.id };
    },
  };
}
