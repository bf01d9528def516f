import { describe, expect, it } from "vitest";
import { CLIENT_CODES, CodedError, ERROR_CATALOGUE, ERROR_CODES, PaymentError, WebhookVerificationError } from "../src/index";
import { WEBHOOK_HANDLER_CODES, WEBHOOK_VERIFICATION_CODES } from "../src/webhooks/index";

describe("the error table", () => {
  it("gives every code to one name only, and every code is its HTTP status x 100 + n", () => {
    const codes = Object.values(ERROR_CODES).map((entry) => entry.code);
    expect(new Set(codes).size).toBe(codes.length);
    for (const { status, code } of Object.values(ERROR_CODES)) expect(Math.floor(code / 100)).toBe(status);
  });

  it("makes the service's catalogue and the receiver's tables views of the one table", () => {
    for (const table of [ERROR_CATALOGUE, WEBHOOK_VERIFICATION_CODES, WEBHOOK_HANDLER_CODES, CLIENT_CODES]) {
      for (const [name, entry] of Object.entries(table)) expect(entry).toBe(ERROR_CODES[name as keyof typeof ERROR_CODES]);
    }
    const covered = new Set([
      ...Object.keys(ERROR_CATALOGUE),
      ...Object.keys(WEBHOOK_VERIFICATION_CODES),
      ...Object.keys(WEBHOOK_HANDLER_CODES),
      ...Object.keys(CLIENT_CODES),
    ]);
    expect([...covered].sort()).toEqual(Object.keys(ERROR_CODES).sort());
  });

  it("answers both kinds of error with the error object, through one base class", () => {
    const errors = [new PaymentError("payload_too_large", "too big"), new WebhookVerificationError("stale", "too old")];
    for (const error of errors) expect(error).toBeInstanceOf(CodedError);
    expect(errors.map((error) => error.toJSON())).toEqual([
      { error: 41301, message: "too big" },
      { error: 40112, message: "too old" },
    ]);
    expect(errors.map((error) => [error.name, error.status])).toEqual([
      ["PaymentError", 413],
      ["WebhookVerificationError", 401],
    ]);
  });
});
