import type { SandboxChain } from "../../adapters/chain/sandbox";
import type { Scope } from "../../core/ports/storage/index";
import type { CoreContext } from "../../core/context";
import { forceExpire, parseAmountIn } from "../../core/invoices/invoices";
import { forceExpireRefundClaim } from "../../core/refunds/claims";
import { getPayout } from "../../core/payouts/payouts";
import type { BackgroundWork } from "../../core/background";
import type { AddressRecord } from "../../core/deposits/records";
import { PaymentError } from "../../errors";
import * as schemas from "../../schemas/merchant";
import * as resources from "../../schemas/resources";
import type { MerchantApiViews } from "../../core/views/merchant-api";
import type { RouteTable } from "../route-table";

/**
 * Sandbox endpoints: drive the simulated chain of test mode. Each one runs the deposit sync (or
 * payout progress) before answering, so its effect is visible as soon as the response is back.
 * A live key gets the same 404 as for a path that does not exist.
 */
export function sandboxRoutes(routes: RouteTable, context: CoreContext, present: MerchantApiViews, chain: SandboxChain, background: BackgroundWork): void {
  const networks = [...new Set(context.currencies.currencies.flatMap((currency) => currency.networks.map((entry) => entry.network)))];

  /** Live keys get the 404 of a path that does not exist, before their body is even read. */
  const testOnly = (scope: Scope): void => {
    if (scope.mode !== "test") throw new PaymentError("route_not_found", "The /api/v1/sandbox endpoints exist in test mode only; use an sk_test_ key.");
  };

  /** The issued address, if this merchant owns it in test mode (the sandbox takes bare addresses). */
  async function ownedAddress(scope: Scope, address: string): Promise<AddressRecord> {
    for (const network of networks) {
      const found = await context.storage.findAddress("test", network, address);
      if (found && found.merchantId === scope.merchantId) return found;
    }
    throw new PaymentError("not_found", `No deposit address "${address}" was issued to this merchant in test mode.`);
  }

  async function ownedDeposit(scope: Scope, txHash: string) {
    const deposit = chain.getDeposit(txHash);
    if (deposit) {
      const address = await context.storage.findAddress("test", deposit.network, deposit.address);
      if (address && address.merchantId === scope.merchantId) return { deposit, address };
    }
    throw new PaymentError("not_found", `No sandbox deposit with txHash "${txHash}" exists for this merchant.`);
  }

  routes.post(
    "/sandbox/deposit/create",
    schemas.sandboxDepositCreateRequest,
    async (body, { scope }) => {
      const address = await ownedAddress(scope, body.address);
      // Another coin than the address's is a stray deposit: it must be one the network carries.
      const coin = body.coin ?? address.coin;
      if (!context.currencies.network(coin, address.network)) {
        throw new PaymentError(
          "unsupported_currency",
          `coin: ${coin} is not a coin of the ${address.network} network in the currency list, so it cannot be sent to ${address.address}.`,
        );
      }
      const amount = parseAmountIn(context, body.amount, coin);
      if (amount <= 0n) throw new PaymentError("validation_error", "Invalid request: amount: must be greater than 0.");
      const { txHash } = chain.createDeposit({ coin, network: address.network, address: address.address, amount, confirmations: body.confirmations });
      await background.syncDeposits("test");
      return { txHash };
    },
    {
      guard: testOnly,
      idempotent: true,
      docs: {
        summary: "Simulate a deposit",
        description:
          "Sends `amount` of `coin` (default: the coin of the address) to a deposit address issued to this merchant in test mode, with `confirmations` (default 0), and runs the deposit sync, so the invoice shows the deposit as soon as this answers. A `coin` other than the address's, of the same network, makes a stray deposit. 400 for a coin the address's network does not carry.",
        response: resources.sandboxDeposit,
        tags: ["Sandbox"],
        errors: [400, 404],
      },
    },
  );

  routes.post(
    "/sandbox/deposit/confirm",
    schemas.sandboxDepositConfirmRequest,
    async (body, { scope }) => {
      const { deposit } = await ownedDeposit(scope, body.txHash);
      if (deposit.dropped) throw new PaymentError("invalid_state", `Deposit ${body.txHash} was dropped; create a new deposit to simulate a re-broadcast.`);
      // False when a drop won the race since the check above.
      if (!chain.setConfirmations(body.txHash, body.confirmations)) {
        throw new PaymentError("invalid_state", `Deposit ${body.txHash} was dropped; create a new deposit to simulate a re-broadcast.`);
      }
      await background.syncDeposits("test");
      return { txHash: body.txHash, confirmations: body.confirmations };
    },
    {
      guard: testOnly,
      docs: {
        summary: "Set a deposit's confirmations",
        description:
          "Once every deposit of an invoice has its network's `minConfirm`, the invoice is PAID (or UNDER_PAID) and the merchant's balance is credited. 409 for a dropped deposit.",
        response: resources.sandboxDepositConfirmation,
        tags: ["Sandbox"],
        errors: [404, 409],
      },
    },
  );

  routes.post(
    "/sandbox/deposit/drop",
    schemas.sandboxDepositDropRequest,
    async (body, { scope }) => {
      await ownedDeposit(scope, body.txHash);
      chain.drop(body.txHash);
      await background.syncDeposits("test");
      return { txHash: body.txHash, dropped: true };
    },
    {
      guard: testOnly,
      docs: {
        summary: "Drop a deposit",
        description:
          "Simulates a reorg or a reverted transaction. A deposit not yet final stops counting and the invoice goes back to PENDING (or EXPIRED/FAILED when its window closed), with a `payment.deposit_dropped` event. A deposit that was final and credited is a reorg deeper than its confirmations: it becomes REVERSED, its credit is taken back (the balance may go below zero), the invoice's `reversedAmount` shows it, and `payment.reversed` is sent.",
        response: resources.sandboxDepositDrop,
        tags: ["Sandbox"],
        errors: [404],
      },
    },
  );

  routes.post(
    "/sandbox/invoice/expire",
    schemas.sandboxInvoiceExpireRequest,
    async (body, { scope }) => {
      return present.invoice(await forceExpire(context, scope, body.invoiceId));
    },
    {
      guard: testOnly,
      docs: {
        summary: "Expire an invoice now",
        description: "Moves the invoice's expiry to now and applies it, as if its lifeTime had passed. 409 for an invoice that is no longer open.",
        response: resources.invoice,
        tags: ["Sandbox"],
        errors: [404, 409],
      },
    },
  );

  // Refund claim links
  routes.post(
    "/sandbox/refund/expire",
    schemas.sandboxRefundExpireRequest,
    async (body, { scope }) => present.payout(await forceExpireRefundClaim(context, scope, body.refundId)),
    {
      guard: testOnly,
      docs: {
        summary: "Expire a refund claim link now",
        description:
          "Ends the window of a refund made as a claim link, as if its `expiresInDays` had passed: EXPIRED, its whole hold credited back, `refund.expired` sent. 409 for a refund already claimed, cancelled or expired.",
        response: resources.payout,
        tags: ["Sandbox"],
        errors: [404, 409],
      },
    },
  );

  routes.post(
    "/sandbox/payout/fail",
    schemas.sandboxPayoutFailRequest,
    async (body, { scope }) => {
      const payout = await getPayout(context, scope, body.payoutId);
      if (payout.status !== "PROCESSING" || !chain.failPayout(payout.id, body.reason)) {
        throw new PaymentError(
          "invalid_state",
          `Payout ${payout.id} is settled already (${payout.status === "PROCESSING" ? "confirmed on chain" : payout.status}).`,
        );
      }
      await background.progressPayouts("test");
      return present.payout(await getPayout(context, scope, body.payoutId));
    },
    {
      guard: testOnly,
      docs: {
        summary: "Fail a processing payout",
        description:
          "The simulated chain rejects the payout: it becomes FAILED with `reason` as its failureReason, and amount and fee are credited back. 409 for a payout that is settled already.",
        response: resources.payout,
        tags: ["Sandbox"],
        errors: [404, 409],
      },
    },
  );
}
