import { fuzzEveryRoute } from "./fuzz/suite";

/** Property-based fuzzing of every route, on a PostgreSQL server: test/http/fuzz/suite.ts. */
fuzzEveryRoute("PostgreSQL server");
