import type { Command } from "../command";
import { deliveriesList, deliveriesRedeliver } from "./deliveries";
import { healthCommand } from "./health";
import { keysIssue, keysList, keysRevoke } from "./keys";
import { merchantsCreate, merchantsList } from "./merchants";
import { migrateCommand } from "./migrate";
import { reconcileCommand } from "./reconcile";
import { rescanCommand } from "./rescan";

/** Every command, in the order the help lists them. */
export const COMMANDS: readonly Command[] = [
  healthCommand,
  reconcileCommand,
  merchantsCreate,
  merchantsList,
  keysIssue,
  keysList,
  keysRevoke,
  rescanCommand,
  deliveriesList,
  deliveriesRedeliver,
  migrateCommand,
];
