/** Part 2 of the property-based bad-input suite over every route (see suite.ts). */
import { fuzzRoutes } from "./suite";

fuzzRoutes(1, 4);
