// The operator CLI's config module in an app that installed the package: the embedded database
// in the app's directory, given as the default export.
import { postgresStorage } from "express-crypto-pay/postgres";

export default { storage: postgresStorage({ dataDir: "./cli-data" }) };
