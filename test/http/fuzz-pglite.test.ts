import { fuzzEveryRoute } from "./fuzz/suite";

/** Property-based fuzzing of every route, on PGlite: test/http/fuzz/suite.ts. */
fuzzEveryRoute("PGlite");
