import type { Command, CommandInput } from "../command";
import { stringFlag } from "../command";
import { UsageError } from "../errors";
import { ok, table } from "../output";

/** `--merchant`, required. */
function merchantFlag(values: CommandInput["values"], command: string): string {
  const merchantId = stringFlag(values, "merchant");
  if (!merchantId) throw new UsageError("--merchant is required", command);
  return merchantId;
}

/** The flags of `keys issue`. */
function issueInput(values: CommandInput["values"]): { merchantId: string; mode: "test" | "live" } {
  const merchantId = merchantFlag(values, "keys issue");
  const mode = stringFlag(values, "mode") ?? "test";
  if (mode !== "test" && mode !== "live") throw new UsageError('--mode must be "test" or "live"', "keys issue");
  return { merchantId, mode };
}

/** `keys issue --merchant ID [--mode test|live]`: prints the plaintext once. */
export const keysIssue: Command = {
  name: "keys issue",
  summary: "Issue an API key (its plaintext is shown once)",
  usage: "keys issue --merchant ID [--mode test|live]",
  help: "Issues an API key for the merchant (mode test unless --mode live) and prints its plaintext: the only time it is shown. Only its hash is stored.",
  flags: { merchant: { type: "string" }, mode: { type: "string" } },
  args: [],
  check: ({ values }) => void issueInput(values),
  async run({ payments, values }) {
    const { merchantId, mode } = issueInput(values);
    const issued = await payments.admin.issueApiKey(merchantId, { mode });
    return ok(
      issued,
      [`issued ${issued.mode} key ${issued.id} for merchant ${issued.merchantId}`, "", `  ${issued.key}`, "", "Store it now: it is never shown again."].join(
        "\n",
      ),
    );
  },
};

/** `keys list --merchant ID`: without secrets. */
export const keysList: Command = {
  name: "keys list",
  summary: "List a merchant's API keys (no secrets)",
  usage: "keys list --merchant ID",
  help: "Lists the merchant's keys, oldest first, revoked ones included: id, mode, the first characters of the key, when created and revoked.",
  flags: { merchant: { type: "string" } },
  args: [],
  check: ({ values }) => void merchantFlag(values, "keys list"),
  async run({ payments, values }) {
    const merchantId = merchantFlag(values, "keys list");
    if (!(await payments.admin.getMerchant(merchantId))) throw new Error(`no merchant with id ${JSON.stringify(merchantId)}`);
    const keys = await payments.admin.listApiKeys(merchantId);
    const rows = keys.map((key) => [key.id, key.mode, `${key.prefix}...`, key.createdAt, key.revokedAt]);
    return ok(keys, keys.length === 0 ? "no keys" : table(["ID", "MODE", "KEY", "CREATED", "REVOKED"], rows));
  },
};

/** `keys revoke KEY_ID`. */
export const keysRevoke: Command = {
  name: "keys revoke",
  summary: "Revoke an API key at once",
  usage: "keys revoke KEY_ID",
  help: "Revokes the key: requests made with it are refused from now on. Exit 1 when no such key exists or it was revoked already.",
  flags: {},
  args: ["KEY_ID"],
  async run({ payments, args }) {
    const keyId = args[0]!;
    const revoked = await payments.admin.revokeApiKey(keyId);
    return {
      exitCode: revoked ? 0 : 1,
      json: { id: keyId, revoked },
      text: revoked ? `revoked key ${keyId}` : `key ${keyId} was not revoked: no such key, or revoked already`,
    };
  },
};
