/** Part 3 of the property-based bad-input suite over every route (see suite.ts). */
import { fuzzRoutes } from "./suite";

fuzzRoutes(2, 4);
