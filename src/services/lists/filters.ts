/**
 * @module A list's filter branch as SQL over `c` (a crm_objects row), built from the CRM search's own
 * predicates (src/services/crm/search.ts), so a list and a search agree on what a value matches. An OR
 * branch matches when one of its filters or branches does, an AND branch when all do (an empty AND
 * matches every record, an empty OR none). Each operation maps to a search operator:
 *
 * | operationType | operator | search |
 * |---|---|---|
 * | STRING | IS_EQUAL_TO, IS_NOT_EQUAL_TO, CONTAINS, DOES_NOT_CONTAIN, STARTS_WITH, ENDS_WITH | EQ, NEQ, CONTAINS_TOKEN, NOT_CONTAINS_TOKEN, token `v*`, token `*v` |
 * | NUMBER | IS_EQUAL_TO, IS_NOT_EQUAL_TO, IS_GREATER_THAN(_OR_EQUAL_TO), IS_LESS_THAN(_OR_EQUAL_TO) | EQ, NEQ, GT, GTE, LT, LTE |
 * | BOOL | IS_EQUAL_TO, IS_NOT_EQUAL_TO | EQ, NEQ with `true`/`false` |
 * | ALL_PROPERTY | IS_KNOWN, IS_UNKNOWN | HAS_PROPERTY, NOT_HAS_PROPERTY |
 * | MULTISTRING, ENUMERATION | IS_ANY_OF, IS_NONE_OF | IN, NOT_IN |
 *
 * `includeObjectsWithNoValueSet: true` also matches records without a value.
 */
import { sql, type SQL } from "drizzle-orm";
import type { Db } from "../../db/client";
import { queryOf, type BoundQuery } from "../../db/d1-raw";
import type { ObjectType } from "../../db/tables/crm";
import { badRequest } from "../../lib/errors";
import type { Operator } from "../../schemas/crm/search";
import type { FilterBranch, PropertyFilter } from "../../schemas/lists";
import { definitionsOf, isBuiltIn, type PropertyDef } from "../crm/properties";
import { filterCondition, type Filter } from "../crm/search";

const OPERATORS: Record<string, Record<string, Operator>> = {
  STRING: { IS_EQUAL_TO: "EQ", IS_NOT_EQUAL_TO: "NEQ", CONTAINS: "CONTAINS_TOKEN", DOES_NOT_CONTAIN: "NOT_CONTAINS_TOKEN", STARTS_WITH: "CONTAINS_TOKEN", ENDS_WITH: "CONTAINS_TOKEN" },
  NUMBER: { IS_EQUAL_TO: "EQ", IS_NOT_EQUAL_TO: "NEQ", IS_GREATER_THAN: "GT", IS_GREATER_THAN_OR_EQUAL_TO: "GTE", IS_LESS_THAN: "LT", IS_LESS_THAN_OR_EQUAL_TO: "LTE" },
  BOOL: { IS_EQUAL_TO: "EQ", IS_NOT_EQUAL_TO: "NEQ" },
  ALL_PROPERTY: { IS_KNOWN: "HAS_PROPERTY", IS_UNKNOWN: "NOT_HAS_PROPERTY" },
  MULTISTRING: { IS_ANY_OF: "IN", IS_NONE_OF: "NOT_IN" },
  ENUMERATION: { IS_ANY_OF: "IN", IS_NONE_OF: "NOT_IN" },
};

const fail = (at: string, message: string) =>
  badRequest(`${at}: ${message}`, { errors: [{ message: `${at}: ${message}`, code: "INVALID_FILTER", in: "body", context: { propertyName: [at] } }] });

function propertiesOf(b: FilterBranch): string[] {
  return [...b.filters.map((f) => f.property), ...b.filterBranches.flatMap(propertiesOf)];
}

/** The search filter an operation stands for. */
function searchFilter(f: PropertyFilter, at: string): Filter {
  const op = f.operation;
  const operator = OPERATORS[op.operationType]?.[op.operator];
  if (!operator) throw fail(`${at}.operation.operator`, `${op.operator} is not an operator of ${op.operationType} (one of ${Object.keys(OPERATORS[op.operationType] ?? {}).join(", ")})`);
  const base = { propertyName: f.property, operator };
  if ("values" in op) return { ...base, values: op.values };
  if (!("value" in op)) return base;
  // A `*` in the value is literal for the list operators, where the search's token treats it as a wildcard.
  const v = String(op.value);
  if (op.operationType === "STRING" && operator.includes("CONTAINS_TOKEN")) {
    if (v.includes("*")) throw fail(`${at}.operation.value`, "* is not allowed in a CONTAINS, STARTS_WITH or ENDS_WITH value");
    if (op.operator === "STARTS_WITH") return { ...base, value: `${v}*` };
    if (op.operator === "ENDS_WITH") return { ...base, value: `*${v}` };
  }
  return { ...base, value: v };
}

function branchSql(type: ObjectType, props: Map<string, PropertyDef>, portalId: number, b: FilterBranch, at: string): SQL {
  const parts: SQL[] = [
    ...b.filters.map((f, i) => {
      const where = `${at}.filters.${i}`;
      if (f.property.startsWith("associations.")) throw fail(`${where}.property`, "association filters are not supported in lists");
      if (!props.has(f.property)) throw fail(`${where}.property`, `${type} has no property ${f.property}`);
      const cond = filterCondition(type, props, portalId, searchFilter(f, where), where);
      if (!f.operation.includeObjectsWithNoValueSet) return cond;
      const unset = filterCondition(type, props, portalId, { propertyName: f.property, operator: "NOT_HAS_PROPERTY" }, where);
      return sql`(${cond} or ${unset})`;
    }),
    ...b.filterBranches.map((c, i) => branchSql(type, props, portalId, c, `${at}.filterBranches.${i}`)),
  ];
  if (parts.length === 0) return b.filterBranchType === "AND" ? sql`1` : sql`0`;
  return sql`(${sql.join(parts, b.filterBranchType === "AND" ? sql` and ` : sql` or `)})`;
}

/** The branch as one SQL condition over `c`; a 400 naming the filter for an unknown property or operator. */
export async function compileBranch(db: Db, portalId: number, type: ObjectType, branch: FilterBranch): Promise<SQL> {
  const props = await definitionsOf(db, portalId, type, [...new Set(propertiesOf(branch))]);
  return branchSql(type, props, portalId, branch, "filterBranch");
}

/**
 * Several branches of one type with one read of property definitions; a branch that no longer compiles
 * (a custom property it names was deleted) is null: it matches nothing.
 */
export async function compileBranches(db: Db, portalId: number, type: ObjectType, branches: FilterBranch[]): Promise<(SQL | null)[]> {
  const props = await definitionsOf(db, portalId, type, [...new Set(branches.flatMap(propertiesOf))]);
  return branches.map((b) => {
    try {
      return branchSql(type, props, portalId, b, "filterBranch");
    } catch {
      return null;
    }
  });
}

/** Rendered conditions of branches that name only built-in properties, by account, type and stored text. */
const rendered = new Map<string, BoundQuery>();
const RENDERED_MAX = 512;

/**
 * The branch stored as `text` (a list's filter_branch) as one condition over `c`, rendered: its SQL text and
 * bound values. Compiling a branch (parsing it, building the search's predicates, rendering them) costs more
 * Worker CPU than a page's own statement; a branch that names only built-in properties compiles to the same
 * SQL every time (their definitions are the code's and cannot be changed or deleted), so it is kept by its
 * exact text: a changed filter is new text and compiles at once. A branch that names a custom property
 * reads its definitions every time, as its type may change.
 */
export async function renderedBranch(db: Db, portalId: number, type: ObjectType, text: string): Promise<BoundQuery> {
  const key = `${portalId}\u0000${type}\u0000${text}`;
  const hit = rendered.get(key);
  if (hit) return hit;
  const branch = JSON.parse(text) as FilterBranch;
  const out = queryOf(await compileBranch(db, portalId, type, branch));
  if (propertiesOf(branch).every((n) => isBuiltIn(type, n))) {
    if (rendered.size >= RENDERED_MAX) rendered.delete(rendered.keys().next().value!);
    rendered.set(key, out);
  }
  return out;
}
