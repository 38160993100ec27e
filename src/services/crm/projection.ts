/**
 * @module The asked properties of v3 reads (the list and the search), picked by SQLite: each stored one is
 * `json_extract`ed from the record's JSON inside `json_object`, so only the asked properties leave D1. A
 * record's whole JSON is never shipped, parsed and dropped again, which is most of a page's cost once
 * records hold many properties (docs/reference/crm.md "Properties a read returns").
 */
import { isPropertyName } from "../../schemas/crm/objects";

/** Name and value pairs per json_object call: SQLite caps a function's arguments (at 127 by default). */
const PAIRS_PER_CALL = 50;

/** A record as the v3 reads answer it: its columns, and the asked stored properties as D1 built them. */
export interface ProjectedRecord {
  id: number;
  createdAt: number;
  updatedAt: number;
  archived: boolean;
  /** The asked properties as a JSON object's members (`"email":"a@b.c","phone":null`): null for each one the record does not hold. */
  propertyMembers: string;
}

/**
 * The select list for `stored` (asked names that are not column-backed) over the records aliased `alias`:
 * id, created_at, updated_at, archived, then one json_object per 50 names. `read` turns a row of it (as an
 * array) back into a record. A name no write accepts is held by no record: it is answered null without
 * asking D1, so only names that need no quoting (isPropertyName) go into the statement.
 */
export function projection(stored: string[], alias = "c") {
  const storable = stored.filter(isPropertyName);
  const objects: string[] = [];
  for (let i = 0; i < storable.length; i += PAIRS_PER_CALL) {
    const pairs = storable.slice(i, i + PAIRS_PER_CALL).map((n) => `'${n}', json_extract(${alias}.properties, '$."${n}"')`);
    objects.push(`json_object(${pairs.join(", ")}) as p${objects.length}`);
  }
  const absent = stored.filter((n) => !isPropertyName(n)).map((n) => `${JSON.stringify(n)}:null`);
  const columns = [`${alias}.id`, `${alias}.created_at`, `${alias}.updated_at`, `${alias}.archived`, ...objects].join(", ");
  const width = 4 + objects.length;
  const read = (r: unknown[]): ProjectedRecord => {
    let members = "";
    for (let k = 4; k < width; k++) {
      const inner = (r[k] as string).slice(1, -1);
      if (inner) members += members ? `,${inner}` : inner;
    }
    for (const a of absent) members += members ? `,${a}` : a;
    return { id: r[0] as number, createdAt: r[1] as number, updatedAt: r[2] as number, archived: r[3] === 1, propertyMembers: members };
  };
  return { columns, width, read };
}
