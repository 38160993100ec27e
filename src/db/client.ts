/** @module One drizzle handle per request over the D1 binding `DB`. */
import { drizzle } from "drizzle-orm/d1";
import * as schema from "./schema";

export const makeDb = (d1: D1Database) => drizzle(d1, { schema });
export type Db = ReturnType<typeof makeDb>;
