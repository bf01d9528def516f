import { scrubUrls } from "../../scrub-urls";
import type { ChainAdapter, ChainPayoutStatus } from "../ports/chain";
import type { Scope, StorageTransaction } from "../ports/storage/index";
import { notFound, PaymentError } from "../../errors";
import { formatDecimal } from "../../money";
import type { CoreContext } from "../context";
import { payoutEvent } from "../webhooks/events";
import type { CommitHook } from "../idempotency/idempotency";
import { refuseIfInDeficit } from "../ledger/deficit";
import { readHotWalletFunding, refuseIfHotWalletShort } from "./funding";
import { Deadline, REQUEST_NODE_WAIT_MS } from "../deadline";
import { newId } from "../../ids";
import { recordEvents, withOutbox } from "../webhooks/outbox";
import { payoutDebitReturn } from "./ledger";
import { parseAmountIn, resolveNetwork } from "../invoices/invoices";
import type { MerchantRecord, Mode } from "../merchants/records";
import type { PayoutRecord } from "./records";
import { approvalRuleOf, needsApproval } from "./approval";
import { refuseUnlistedDestination } from "./allowlist";
import { refuseTokenContractDestination } from "./token-contract-destination";

/** A payout request, shape-checked by the caller. */
export interface CreatePayoutInput {
  currency: string;
  network: string | null;
  /** Decimal string in `currency`. */
  amount: string;
  address: string;
}

/** Who asks for a payout, for the approval rule and its second-person check. */
export interface PayoutRequester {
  /** The requester's identity (an API key's id, a user's id), recorded as `requestedBy`; null when unknown. */
  requestedBy?: string | null;
  /** The merchant as read with the request (its approval threshold); read from storage when left out. */
  merchant?: MerchantRecord;
}

/**
 * Creates a payout: checks the minimum and the address, then debits amount + fees, checks that
 * the hot wallet can fund it, and stores the payout in one atomic step (so parallel payouts can
 * never overdraw a balance nor, together, the hot wallet), with its
 * `payout.processing` (or `refund.processing`) event, then hands it to the chain. A chain failure after the debit leaves the payout PROCESSING for the payout loop to
 * retry; it never loses the debit. A payout above the approval threshold is debited the same
 * way but stored AWAITING_APPROVAL (event `payout.awaiting_approval`) and not sent: see
 * `approvePayout`. A token contract as the destination is refused before anything is debited
 * (`refuseTokenContractDestination`): what is sent there is lost. While the merchant's payout allowlist is on, an address not usable on it is
 * refused before anything is debited (`refuseUnlistedDestination`).
 */
export async function createPayout(
  context: CoreContext,
  scope: Scope,
  input: CreatePayoutInput,
  options: {
    refund?: {
      /** The invoice the payout refunds. */
      invoiceId: string;
      /** The deposit it refunds, for a refund of one deposit. */
      depositId?: string | null;
      /** Runs first inside the debit's transaction; throws to refuse (the refundable-amount check). */
      check: (tx: StorageTransaction, amount: bigint) => Promise<void>;
    };
    /**
     * Runs last inside the debit's transaction, and again in the one that records the
     * broadcast's txHash, with the payout as it is then (an idempotency key's answer).
     */
    onCommit?: CommitHook<PayoutRecord>;
  } & PayoutRequester = {},
): Promise<PayoutRecord> {
  const { refund, onCommit } = options;
  const { currency, network } = resolveNetwork(context, input.currency, input.network, scope.mode);
  const amount = parseAmountIn(context, input.amount, currency.symbol);
  if (amount <= 0n) throw new PaymentError("validation_error", "amount must be greater than 0.");
  if (amount < network.withdrawMin) {
    throw new PaymentError(
      "amount_below_minimum",
      `The smallest ${currency.symbol} payout on ${network.network} is ${formatDecimal(network.withdrawMin, currency.decimals)}.`,
    );
  }
  const chain = context.chains.require(scope.mode, currency.symbol, network.network);
  const unavailable = chain.payoutsUnavailable?.(currency.symbol, network.network);
  if (unavailable) throw new PaymentError("chain_unavailable", unavailable);
  // One deadline for every node call of the request: a hung node never holds the answer for
  // its adapter's whole timeout (a 503 before anything is stored, or the payout sent later).
  const deadline = new Deadline(REQUEST_NODE_WAIT_MS);
  if (!(await destinationIsValid(chain, currency.symbol, network.network, input.address, deadline))) {
    throw new PaymentError("invalid_address", `"${input.address}" is not a valid ${currency.symbol} address on ${network.network}.`);
  }
  refuseTokenContractDestination(context, chain, network.network, input.address);
  const fee = network.withdrawFee + network.staticFixedFee;
  const funding = { merchantId: scope.merchantId, coin: currency.symbol, network: network.network, amount, fee };
  // The node is read before the transaction; the check against payouts taken meanwhile is in it, under a lock.
  let fundingSkipped: FundingSkipped | null = null;
  const reading = await readHotWalletFunding(context, scope.mode, chain, funding, 0n, deadline, (why) => {
    fundingSkipped = { why, said: false };
  });
  const merchant = options.merchant ?? (await context.storage.getMerchant(scope.merchantId));
  const held = await needsApproval(context, approvalRuleOf(context, merchant), currency.symbol, amount);
  const now = context.now();
  const payout: PayoutRecord = {
    id: newId("po"),
    merchantId: scope.merchantId,
    mode: scope.mode,
    status: held ? "AWAITING_APPROVAL" : "PROCESSING",
    coin: currency.symbol,
    network: network.network,
    address: input.address,
    amount,
    fee,
    refundOf: refund?.invoiceId ?? null,
    refundDepositId: refund?.depositId ?? null,
    txHash: null,
    failureReason: null,
    requestedBy: options.requestedBy ?? null,
    reviewedBy: null,
    pendingReason: null,
    claim: null,
    createdAt: now,
    updatedAt: now,
  };
  await withOutbox(context, async (tx) => {
    await refuseUnlistedDestination(context, tx, scope, network.network, input.address);
    await refund?.check(tx, amount);
    const posted = await tx.postLedgerEntries([
      {
        id: newId("led"),
        merchantId: scope.merchantId,
        mode: scope.mode,
        asset: currency.symbol,
        amount: -(amount + fee),
        kind: "payout",
        causeKey: `payout:${payout.id}`,
        createdAt: now,
      },
    ]);
    if (posted.status === "insufficient") {
      await refuseIfInDeficit(context, tx, scope, currency.symbol);
      throw new PaymentError(
        "insufficient_balance",
        `The ${currency.symbol} balance does not cover ${formatDecimal(amount + fee, currency.decimals)} (amount plus ${formatDecimal(fee, currency.decimals)} fees).`,
      );
    }
    await refuseIfHotWalletShort(context, tx, reading, funding);
    await tx.insertPayout(payout);
    await recordEvents(context, tx, [payoutEvent(context, payout, held ? "awaiting_approval" : "processing")]);
    await onCommit?.(tx, payout);
  });
  // A held payout waits for its approval; the background round sends it after.
  if (held) return payout;
  // Stored and debited: past the deadline the answer is the payout unsent, and the broadcast
  // goes on (or the background round's sends it). Once answered, a late broadcast leaves the
  // stored answer of an Idempotency-Key as it was answered.
  let answered = false;
  const stillAnswering: CommitHook<PayoutRecord> | undefined = onCommit && (async (tx, sent) => (answered ? undefined : onCommit(tx, sent)));
  const skipped = fundingSkipped as FundingSkipped | null;
  const waited = await deadline.wait(broadcast(context, payout, stillAnswering, undefined, skipped));
  answered = true;
  if (!waited.done) {
    // The node held the request: the skipped funding check is said now, once (the send going on
    // in the background does not say it again).
    if (skipped && !skipped.said) {
      skipped.said = true;
      context.logger.warn(`payout ${payout.id} taken without the hot wallet's funding check (${skipped.why}); it is sent when the node answers`);
    }
    // The payout as committed: what an Idempotency-Key stored for this request.
    return payout;
  }
  // Not sent: read again, for the `pendingReason` the failed broadcast stored.
  return waited.value ?? (await context.storage.getPayout(scope, payout.id)) ?? payout;
}

/**
 * Whether `address` can take `coin` on `network` by the chain adapter's rule, asked within
 * `deadline`: a node that does not answer by then is a 503 (`chain_unavailable`) before
 * anything is debited, never a request held for the adapter's whole timeout.
 */
export async function destinationIsValid(chain: ChainAdapter, coin: string, network: string, address: string, deadline: Deadline): Promise<boolean> {
  const valid = await deadline.wait(Promise.resolve(chain.isValidAddress(coin, network, address)));
  if (valid.done) return valid.value;
  throw new PaymentError(
    "chain_unavailable",
    `The ${network} node did not answer within ${deadline.ms / 1000} s to check the destination; nothing was debited. Retry later.`,
  );
}

/** The payout with this id in `scope`, or a 404. */
export async function getPayout(context: CoreContext, scope: Scope, id: string): Promise<PayoutRecord> {
  const payout = await context.storage.getPayout(scope, id);
  if (!payout) throw notFound("payout", id);
  return payout;
}

/** Why a payout's funding check was skipped, and whether the operator was told yet (told once, by whoever comes first). */
export interface FundingSkipped {
  why: string;
  said: boolean;
}

/** `text(why)` the first time it is asked for a skipped check, "" after (and when none was skipped). */
function sayOnce(skipped: FundingSkipped | null, text: (why: string) => string): string {
  if (!skipped || skipped.said) return "";
  skipped.said = true;
  return text(skipped.why);
}

/**
 * Sends a payout that has no txHash yet; returns it updated, or null when the chain failed.
 * `onCommit` (the creating request's) runs again with the sent payout, so a replay of the
 * request answers what the request answered. A chain failure is stored as the payout's
 * `pendingReason` (shown on its view and in health) and reported once: into `failures` for the
 * background round, else as one log line (with `fundingSkipped`, why the funding check was
 * skipped, in the same line unless said already), never with the error's stack.
 */
export async function broadcast(
  context: CoreContext,
  payout: PayoutRecord,
  onCommit?: CommitHook<PayoutRecord>,
  failures?: unknown[],
  fundingSkipped: FundingSkipped | null = null,
): Promise<PayoutRecord | null> {
  const chain = context.chains.forPair(payout.mode, payout.coin, payout.network);
  if (!chain) return null;
  let txHash: string;
  try {
    const send = () => chain.sendPayout({ payoutId: payout.id, coin: payout.coin, network: payout.network, address: payout.address, amount: payout.amount });
    ({ txHash } = await (context.telemetry
      ? context.telemetry.span("payout broadcast", { coin: payout.coin, network: payout.network, mode: payout.mode }, send)
      : send()));
  } catch (error) {
    const reason = pendingReasonOf(error);
    await recordPendingReason(context, payout.id, reason);
    const message = `payout ${payout.id} could not be sent yet; it will be retried`;
    // The background round reports its failures together (logged once, then a line a round).
    if (failures) failures.push(retryLater(message, error));
    else {
      const skipped = sayOnce(fundingSkipped, (why) => `; taken without the hot wallet's funding check (${why})`);
      context.logger.warn(`${message}: ${reason}${skipped}`);
    }
    return null;
  }
  const recorded = await context.storage.transaction(async (tx) => {
    const current = await tx.lockPayout(payout.id);
    if (!current || current.txHash !== null || current.status !== "PROCESSING") return { payout: current, sent: false };
    const sent = { ...current, txHash, pendingReason: null, updatedAt: context.now() };
    await tx.updatePayout(sent);
    await onCommit?.(tx, sent);
    return { payout: sent, sent: true };
  });
  if (recorded.sent) logPayoutSent(context, recorded.payout!);
  // The one line the operator gets when the funding check was skipped and the payout went out
  // (said here, not by the request: a send that outlives the request's deadline says it too).
  const skipped = recorded.sent ? sayOnce(fundingSkipped, (why) => `payout ${payout.id} sent without the hot wallet's funding check (${why})`) : "";
  if (skipped) context.logger.warn(skipped);
  return recorded.payout;
}

/**
 * The operator's line for a payout the chain accepted: ids, amounts and the transaction, never
 * a key or a node's URL. Logged once, after the txHash is stored.
 */
function logPayoutSent(context: CoreContext, payout: PayoutRecord): void {
  context.logger.info?.(`payout ${payout.id} sent`, payoutLogFields(context, payout, "sent"));
}

/** The fields of a payout's log line: ids, exact amounts, destination and transaction (never a key or a URL). */
function payoutLogFields(context: CoreContext, payout: PayoutRecord, outcome: "sent" | "failed"): Record<string, unknown> {
  const decimals = context.currencies.decimalsOf(payout.coin) ?? 0;
  return {
    event: `${payout.refundOf === null ? "payout" : "refund"}.${outcome}`,
    payoutId: payout.id,
    merchantId: payout.merchantId,
    mode: payout.mode,
    refundOf: payout.refundOf,
    coin: payout.coin,
    network: payout.network,
    amount: formatDecimal(payout.amount, decimals),
    fee: formatDecimal(payout.fee, decimals),
    address: payout.address,
    txHash: payout.txHash,
  };
}

/**
 * Background loop body for one chain: sends its payouts not yet sent and settles sent ones as
 * the chain reports them, each settlement with its event (`payout.completed`/`failed`,
 * `refund.*` for a refund). A failed payout returns its whole debit (amount and fees) to the
 * balance, once. Returns how many payouts changed state. A payout the chain could not send or
 * report on is left for the next round; those failures are thrown together at the end, after
 * every other payout had its turn.
 */
export async function progressPayouts(context: CoreContext, mode: Mode, chain: ChainAdapter, pageSize = 100): Promise<number> {
  let changed = 0;
  const failures: unknown[] = [];
  // Every PROCESSING payout is visited each round, page by page, so payouts waiting for
  // confirmations can never crowd an unsent one out of view.
  let after: string | null = null;
  for (;;) {
    const page = await context.storage.listPayoutsByStatus(mode, "PROCESSING", pageSize, after);
    for (const payout of page) {
      if (context.chains.forPair(mode, payout.coin, payout.network) !== chain) continue; // Another chain's schedule.
      if (await progressPayout(context, chain, payout, failures)) changed++;
    }
    if (page.length < pageSize) break;
    after = page.at(-1)!.id;
  }
  if (failures.length === 1) throw failures[0];
  if (failures.length > 1) throw new AggregateError(failures, `${failures.length} payouts wait for the ${chain.feedId ?? chain.name} chain`);
  return changed;
}

/** Sends one payout or settles it from the chain's report; true when its state changed. */
async function progressPayout(context: CoreContext, chain: ChainAdapter, payout: PayoutRecord, failures: unknown[]): Promise<boolean> {
  if (payout.txHash === null) return (await broadcast(context, payout, undefined, failures)) !== null;
  let report: ChainPayoutStatus;
  try {
    report = await chain.getPayoutStatus({ payoutId: payout.id, txHash: payout.txHash, coin: payout.coin, network: payout.network });
  } catch (error) {
    failures.push(retryLater(`payout ${payout.id}: status check failed; will retry`, error));
    return false;
  }
  if (report.status === "pending") return false;
  let returned: PayoutRecord | null = null;
  const changed = await withOutbox(context, async (tx) => {
    const current = await tx.lockPayout(payout.id);
    if (current?.status !== "PROCESSING") return false;
    const now = context.now();
    if (report.status === "confirmed") {
      const completed: PayoutRecord = { ...current, status: "COMPLETED", updatedAt: now };
      await tx.updatePayout(completed);
      await recordEvents(context, tx, [payoutEvent(context, completed, "completed")]);
      return true;
    }
    await tx.postLedgerEntries([payoutDebitReturn(current, now)]);
    const failed: PayoutRecord = { ...current, status: "FAILED", failureReason: report.reason, updatedAt: now };
    await tx.updatePayout(failed);
    await recordEvents(context, tx, [payoutEvent(context, failed, "failed")]);
    returned = failed;
    return true;
  });
  if (returned) logPayoutFailed(context, returned);
  return changed;
}

/**
 * The operator's line for a payout that failed on chain, after its debit (amount and fee) went
 * back to the balance: a money movement, so one warning, with ids and amounts. Logged once,
 * after the commit.
 */
function logPayoutFailed(context: CoreContext, payout: PayoutRecord): void {
  const fields = payoutLogFields(context, payout, "failed");
  context.logger.warn(
    `payout ${payout.id} failed on chain (${payout.failureReason}): ${fields.amount} ${payout.coin} and its fee ${fields.fee} returned to the balance`,
    { ...fields, reason: payout.failureReason },
  );
}

/** Longest `pendingReason` kept: a node's words, cut, never a page of them. */
const PENDING_REASON_LIMIT = 200;

/** What a chain's refusal to send says, for the payout's `pendingReason`: the adapter's scrubbed message, cut short. */
function pendingReasonOf(error: unknown): string {
  // Scrubbed here too: a host's own adapter, or an error that is not the node's, may name a URL with a key in it.
  const text = scrubUrls(errorMessage(error)).replace(/\s+/g, " ").trim() || "the chain did not say why";
  return text.length > PENDING_REASON_LIMIT ? `${text.slice(0, PENDING_REASON_LIMIT - 1)}…` : text;
}

/**
 * Stores why a payout could not be sent, when that changed (a payout retried each round writes
 * once per new reason). Its `updatedAt` stays: nothing about the payout itself changed.
 */
async function recordPendingReason(context: CoreContext, payoutId: string, reason: string): Promise<void> {
  try {
    await context.storage.transaction(async (tx) => {
      const current = await tx.lockPayout(payoutId);
      if (current?.status !== "PROCESSING" || current.txHash !== null || current.pendingReason === reason) return;
      await tx.updatePayout({ ...current, pendingReason: reason });
    });
  } catch {
    // The reason is a report: a storage that fails here fails the round's next steps too, which say so.
  }
}

/** A payout failure to report and retry: says which payout, keeps the chain's error as its cause. */
function retryLater(message: string, error: unknown): Error {
  return new Error(`${message}: ${scrubUrls(errorMessage(error))}`, { cause: error });
}

/** An error's message, or what was thrown when it is not an Error. */
function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
