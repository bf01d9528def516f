import type { AnyCommand } from "../remote/command";
import { deliveriesList, deliveriesRedeliver } from "./deliveries";
import { healthCommand } from "./health";
import { listenCommand } from "./listen";
import { triggerCommand } from "./trigger";
import { keysIssue, keysList, keysRevoke } from "./keys";
import { merchantsCreate, merchantsList } from "./merchants";
import { migrateCommand } from "./migrate";
import { reconcileCommand } from "./reconcile";
import { rescanCommand } from "./rescan";

/** Every command, in the order the help lists them. */
export const COMMANDS: readonly AnyCommand[] = [
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
  listenCommand,
  triggerCommand,
];
