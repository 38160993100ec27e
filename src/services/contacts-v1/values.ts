/**
 * @module The v1 face of the record value checks (src/services/crm/values.ts): a v1 contact write is checked
 * as a v3 one is (a live owner in `hubspot_owner_id`, an allowed option of a fixed enumeration), and a bad
 * value is answered in the legacy service's shape: 400 "Property values were not valid" with one
 * `validationResults` entry per bad property (`isValid`, `message`, `error`, `name`), as it answers an
 * invalid email. A batch entry's failure also names its `index`.
 */
import { ApiError, type ErrorDetail } from "../../lib/errors";
import { checkValues, type ValueSource } from "../crm/values";
import type { PropertyPatch } from "./contacts";

/** Checks the properties of one v1 write, or of each entry of a batch (`index` then names the bad entries). */
export async function checkContactValues(src: ValueSource, portalId: number, patches: PropertyPatch[], batch = false): Promise<void> {
  try {
    await checkValues(src, portalId, "contacts", patches.map((properties, i) => ({ properties, at: batch ? `${i}.` : "" })));
  } catch (err) {
    if (!(err instanceof ApiError) || !err.init.errors) throw err;
    throw legacyError(err.init.errors, batch);
  }
}

function legacyError(errors: ErrorDetail[], batch: boolean): ApiError {
  const named = errors.map((e) => {
    const field = ((e.context?.propertyName as string[] | undefined) ?? [])[0] ?? "";
    const [, index, name] = field.match(/^(?:(\d+)\.)?properties\.(.+)$/) ?? [field, undefined, field];
    return { index, result: { isValid: false, message: e.message, error: e.code ?? "INVALID_OPTION", name } };
  });
  const indexes = [...new Set(named.flatMap((n) => (n.index === undefined ? [] : [n.index])))];
  return new ApiError("VALIDATION_ERROR", "Property values were not valid", {
    extra: { validationResults: named.map((n) => n.result) },
    ...(batch ? { context: { index: indexes } } : {}),
  });
}
