import { describe, expect, it } from "vitest";
import { callFrames, parityValueFrames, type CallFrame, type ParityTrace } from "../../../../src/adapters/chain/evm/traces";

/**
 * Which internal value transfers count: both trace formats, the same positions, and nothing
 * from a frame that failed or sits below one that failed (a revert undoes everything under it).
 */

const A = "0x00000000000000000000000000000000000000aa";
const B = "0x00000000000000000000000000000000000000bb";
const C = "0x00000000000000000000000000000000000000cc";
const checksum = (address: string) => address.toLowerCase();

describe("callFrames (geth callTracer)", () => {
  it("finds CALLs and a SELFDESTRUCT with value, depth-first, skipping failed subtrees and value-less frames", () => {
    const root: CallFrame = {
      type: "CALL",
      from: C,
      to: A,
      value: "0x5",
      calls: [
        { type: "CALL", from: A, to: B, value: "0x10" },
        { type: "STATICCALL", from: A, to: B },
        { type: "CALL", from: A, to: C, value: "0x20", error: "execution reverted", calls: [{ type: "CALL", from: C, to: B, value: "0x30" }] },
        { type: "DELEGATECALL", from: A, to: C, value: "0x40" },
        { type: "SELFDESTRUCT", from: A, to: B, value: "0x50" },
      ],
    };
    expect(callFrames(root).map((frame) => [checksum(frame.to), frame.value, frame.depth, frame.position])).toEqual([
      [A, 5n, 0, 0],
      [B, 16n, 1, 1],
      [B, 80n, 1, 6],
    ]);
  });

  it("finds nothing in a transaction that failed at the top", () => {
    expect(callFrames({ type: "CALL", from: C, to: A, value: "0x5", error: "out of gas", calls: [{ type: "CALL", from: A, to: B, value: "0x1" }] })).toEqual(
      [],
    );
  });
});

describe("parityValueFrames (trace_block)", () => {
  const tx = "0xabc";
  const trace = (traceAddress: number[], extra: Partial<ParityTrace>): ParityTrace => ({
    type: "call",
    action: { callType: "call", to: B, value: "0x0" },
    traceAddress,
    transactionHash: tx,
    ...extra,
  });

  it("gives the same transfers and positions as the call tree of the same transaction", () => {
    const traces: ParityTrace[] = [
      trace([], { action: { callType: "call", to: A, value: "0x5" } }),
      trace([0], { action: { callType: "call", to: B, value: "0x10" } }),
      trace([1], { action: { callType: "staticcall", to: B, value: "0x0" } }),
      trace([2], { action: { callType: "call", to: C, value: "0x20" }, error: "Reverted" }),
      trace([2, 0], { action: { callType: "call", to: B, value: "0x30" } }),
      trace([3], { action: { callType: "delegatecall", to: C, value: "0x40" } }),
      { type: "suicide", action: { refundAddress: B, balance: "0x50" }, traceAddress: [4], transactionHash: tx },
      { type: "reward", action: { value: "0x1" }, traceAddress: [], transactionHash: null },
    ];
    expect(parityValueFrames(traces).map((frame) => [frame.txHash, checksum(frame.to), frame.value, frame.depth, frame.position])).toEqual([
      [tx, A, 5n, 0, 0],
      [tx, B, 16n, 1, 1],
      [tx, B, 80n, 1, 6],
    ]);
  });

  it("counts positions per transaction and drops everything under a failed top call", () => {
    const traces: ParityTrace[] = [
      { ...trace([], { action: { callType: "call", to: A, value: "0x1" }, error: "Reverted" }) },
      trace([0], { action: { callType: "call", to: B, value: "0x2" } }),
      { ...trace([], { action: { callType: "call", to: C, value: "0x3" } }), transactionHash: "0xdef" },
      { ...trace([0], { action: { callType: "call", to: A, value: "0x4" } }), transactionHash: "0xdef" },
    ];
    expect(parityValueFrames(traces).map((frame) => [frame.txHash, frame.value, frame.position])).toEqual([
      ["0xdef", 3n, 0],
      ["0xdef", 4n, 1],
    ]);
  });
});
