import { fuzzEveryRoute } from "./fuzz/suite";

/** Property-based fuzzing of every route, on the memory adapter: test/http/fuzz/suite.ts. */
fuzzEveryRoute("memory storage");
