import type { OperatorListReads } from "../../../core/ports/storage/index";
import type { SqlQueryable } from "./sql-client";
import type { Statements } from "./statements/index";
import { merchantColumns } from "./statements/merchants";
import { deliveryColumns } from "./statements/webhook-deliveries";

/** The operator's reads across merchants, over a connection (see `sqlReads`). */
export function operatorListReads(db: SqlQueryable, s: Statements): OperatorListReads {
  return {
    listMerchants: async (page) => (await db.query(s.listMerchants, [Math.max(0, page.limit), page.after ?? null])).rows.map(merchantColumns.read),
    listAllWebhookDeliveries: async (filter, page) =>
      (
        await db.query(s.listAllWebhookDeliveries, [
          filter.merchantId ?? null,
          filter.mode ?? null,
          filter.failing ?? false,
          page.after ?? null,
          Math.max(0, page.limit),
        ])
      ).rows.map(deliveryColumns.read),
  };
}
