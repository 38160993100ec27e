/**
 * @module Association label definitions (`/crm/v4/associations/{from}/{to}/labels`, docs/reference/crm.md
 * "Association labels") and the association types of a pair: the HUBSPOT_DEFINED ones from code (the
 * unlabelled default and, where the real service has one, "Primary") and the account's USER_DEFINED labels.
 */
import { sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { rawRows, rawStatement, runRawBatch } from "../../db/d1-raw";
import type { ObjectType } from "../../db/tables/crm";
import { badRequest, notFound } from "../../lib/errors";
import { pairDefault, primaryTypeId } from "./association-types";

/**
 * USER_DEFINED type ids are numbered per account from USER_TYPE_BASE + 1 upward. Every HUBSPOT_DEFINED id is
 * far below it, so the two categories never share an id and an id alone says its category.
 */
export const USER_TYPE_BASE = 1_000_000;

export type Category = "HUBSPOT_DEFINED" | "USER_DEFINED";
export interface AssociationType {
  category: Category;
  typeId: number;
  label: string | null;
  /** The type id of the same association read from the other side; null when that side has no such type. */
  inverseTypeId: number | null;
}

export const categoryOf = (typeId: number): Category => (typeId > USER_TYPE_BASE ? "USER_DEFINED" : "HUBSPOT_DEFINED");

/**
 * The types of a pair that are not the account's labels: its default (unlabelled) type first (a custom type's
 * from its schema's definitions, USER_DEFINED), then "Primary" where it exists.
 */
export function builtInTypes(from: ObjectType, to: ObjectType): AssociationType[] {
  const types: AssociationType[] = [];
  const unlabelled = pairDefault(from, to);
  if (unlabelled !== null) types.push({ ...unlabelled, label: null });
  const primary = primaryTypeId(from, to);
  if (primary !== null) types.push({ category: "HUBSPOT_DEFINED", typeId: primary, label: "Primary", inverseTypeId: primaryTypeId(to, from) });
  return types;
}

/** The account's label definitions of one direction, as a statement (so reads can put it in their batch). */
const DEFINITIONS = `select type_id, label, inverse_type_id from association_definitions
  where portal_id = ?1 and from_type = ?2 and to_type = ?3 order by type_id`;
export const definitionsStatement = (db: Db, portalId: number, from: ObjectType, to: ObjectType) => db.$client.prepare(DEFINITIONS).bind(portalId, from, to);

/** Every type of a pair (built-in, then the account's labels in id order), from the rows of definitionsQuery. */
export function pairTypes(from: ObjectType, to: ObjectType, rows: unknown[][]): AssociationType[] {
  return [
    ...builtInTypes(from, to),
    ...rows.map(([typeId, label, inverse]) => ({ category: "USER_DEFINED" as const, typeId: Number(typeId), label: String(label), inverseTypeId: Number(inverse) })),
  ];
}

export async function listTypes(db: Db, portalId: number, from: ObjectType, to: ObjectType): Promise<AssociationType[]> {
  return pairTypes(from, to, await definitionsStatement(db, portalId, from, to).raw());
}

/**
 * A new label from `from` to `to`: two type ids, one per direction, in one batch (an unpaired label carries
 * the same text both ways; an unpaired label of a type with itself has one id, its own inverse). Only pairs
 * with a default type (built-in, or a custom type's definition) can be labelled, as only those can be associated. The name is unique among
 * the account's labels of the pair (either direction).
 */
export async function createLabel(db: Db, portalId: number, from: ObjectType, to: ObjectType, input: { name: string; label: string; inverseLabel?: string }) {
  if (pairDefault(from, to) === null) throw badRequest(`No association type exists from ${from} to ${to}, so it cannot be labelled`);
  const [taken] = await rawRows(
    db,
    sql`select 1 from association_definitions where portal_id = ${portalId} and name = ${input.name}
      and ((from_type = ${from} and to_type = ${to}) or (from_type = ${to} and to_type = ${from})) limit 1`,
  );
  if (taken) throw badRequest(`A label named ${input.name} already exists from ${from} to ${to}`, { errors: [{ message: "name taken", in: "body", context: { propertyName: ["name"] } }] });
  const top = sql`(select coalesce(max(type_id), ${USER_TYPE_BASE}) from association_definitions where portal_id = ${portalId})`;
  const single = from === to && input.inverseLabel === undefined;
  const statements = [
    rawStatement(
      db,
      sql`insert into association_definitions (portal_id, type_id, from_type, to_type, name, label, inverse_type_id)
        select ${portalId}, m + 1, ${from}, ${to}, ${input.name}, ${input.label}, m + ${single ? 1 : 2} from (select ${top} as m)`,
    ),
  ];
  if (!single) {
    statements.push(
      rawStatement(
        db,
        sql`insert into association_definitions (portal_id, type_id, from_type, to_type, name, label, inverse_type_id)
          select ${portalId}, m + 1, ${to}, ${from}, ${input.name}, ${input.inverseLabel ?? input.label}, m from (select ${top} as m)`,
      ),
    );
  }
  statements.push(rawStatement(db, sql`select type_id, label from association_definitions where portal_id = ${portalId} and name = ${input.name} and from_type = ${from} and to_type = ${to}`));
  const results = await runRawBatch(db, statements);
  const [made] = (results.at(-1)?.results ?? []) as { type_id: number; label: string }[];
  if (!made) throw new Error("the label just written was not read back");
  const forward = { category: "USER_DEFINED" as const, typeId: made.type_id, label: made.label };
  // A paired label answers both of its type ids, as the real service does.
  return input.inverseLabel === undefined ? [forward] : [forward, { category: "USER_DEFINED" as const, typeId: made.type_id + 1, label: input.inverseLabel }];
}

/** The account's label of `typeId` from `from` to `to`, or a 400/404 naming it. */
async function ownLabel(db: Db, portalId: number, from: ObjectType, to: ObjectType, typeId: number, missing: (message: string) => Error) {
  const [row] = await rawRows<[number]>(
    db,
    sql`select inverse_type_id from association_definitions where portal_id = ${portalId} and type_id = ${typeId} and from_type = ${from} and to_type = ${to}`,
  );
  if (!row) throw missing(`associationTypeId ${typeId} is not a USER_DEFINED label from ${from} to ${to}`);
  return { inverseTypeId: Number(row[0]) };
}

/** Renames a label (and its other direction's, with `inverseLabel`); HUBSPOT_DEFINED types cannot change. */
export async function updateLabel(db: Db, portalId: number, from: ObjectType, to: ObjectType, input: { associationTypeId: number; label: string; inverseLabel?: string }) {
  const { inverseTypeId } = await ownLabel(db, portalId, from, to, input.associationTypeId, (m) =>
    badRequest(m, { errors: [{ message: m, in: "body", context: { propertyName: ["associationTypeId"] } }] }),
  );
  const statements = [rawStatement(db, sql`update association_definitions set label = ${input.label} where portal_id = ${portalId} and type_id = ${input.associationTypeId}`)];
  if (input.inverseLabel !== undefined && inverseTypeId !== input.associationTypeId) {
    statements.push(rawStatement(db, sql`update association_definitions set label = ${input.inverseLabel} where portal_id = ${portalId} and type_id = ${inverseTypeId}`));
  }
  await runRawBatch(db, statements);
}

/**
 * Deletes a label, both of its directions, and (as the real service does) takes it off every pair that
 * holds it, and drops its limits; the pairs' default associations stay.
 */
export async function deleteLabel(db: Db, portalId: number, from: ObjectType, to: ObjectType, typeId: number) {
  const { inverseTypeId } = await ownLabel(db, portalId, from, to, typeId, notFound);
  const ids = JSON.stringify([typeId, inverseTypeId]);
  await runRawBatch(
    db,
    ["crm_association_types", "association_limits", "association_definitions"].map((table) =>
      rawStatement(db, sql`delete from ${sql.identifier(table)} where portal_id = ${portalId} and type_id in (select value from json_each(${ids}))`),
    ),
  );
}
