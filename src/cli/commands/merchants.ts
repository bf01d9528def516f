import type { Command, CommandInput } from "../command";
import { stringFlag } from "../command";
import { UsageError } from "../errors";
import { ok, table } from "../output";
import { pageFlags, pageOptions } from "./paging";

/** `--name`, required and not blank. */
function nameFlag(values: CommandInput["values"]): string {
  const name = stringFlag(values, "name");
  if (!name?.trim()) throw new UsageError("--name is required", "merchants create");
  return name;
}

/** `merchants create --name N [--id ID]`. */
export const merchantsCreate: Command = {
  name: "merchants create",
  summary: "Create a merchant",
  usage: "merchants create --name NAME [--id ID]",
  help: "Creates a merchant and prints its id. --id keeps an id of your choosing (it must be new).",
  flags: { name: { type: "string" }, id: { type: "string" } },
  args: [],
  check: ({ values }) => void nameFlag(values),
  async run({ payments, values }) {
    const name = nameFlag(values);
    const id = stringFlag(values, "id");
    if (id !== undefined && (await payments.admin.getMerchant(id))) throw new Error(`a merchant with id ${JSON.stringify(id)} exists already`);
    const merchant = await payments.admin.createMerchant({ name, ...(id === undefined ? {} : { id }) });
    const view = { id: merchant.id, name: merchant.name, settleCurrency: merchant.settleCurrency, createdAt: new Date(merchant.createdAt).toISOString() };
    return ok(view, `created merchant ${merchant.id} (${merchant.name})`);
  },
};

/** `merchants list`. */
export const merchantsList: Command = {
  name: "merchants list",
  summary: "List merchants, newest first",
  usage: "merchants list [--limit N] [--after ID]",
  help: "Lists merchants newest first, 100 at a time (--limit up to 1000); --after takes the last id of the previous page.",
  flags: pageFlags,
  args: [],
  check: ({ values }) => void pageOptions(values, "merchants list"),
  async run({ payments, values }) {
    const page = await payments.admin.listMerchants(pageOptions(values, "merchants list"));
    const rows = page.data.map((merchant) => [merchant.id, merchant.name, merchant.settleCurrency, merchant.createdAt]);
    const more = page.hasMore ? `\nmore: --after ${page.nextCursor}` : "";
    return ok(page, page.data.length === 0 ? "no merchants" : `${table(["ID", "NAME", "SETTLES IN", "CREATED"], rows)}${more}`);
  },
};
