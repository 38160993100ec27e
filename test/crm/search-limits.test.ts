/**
 * The search's documented list limit, met and passed by one: an IN or NOT_IN filter takes up to 100 values,
 * and a search may carry several such lists. D1 binds at most 100 parameters per statement, so each list
 * goes as one parameter; at 101 values the answer is a 400 naming the limit, never a 500.
 */
import { describe, expect, it } from "vitest";
import { expectError, tenant } from "../helpers/api";
import { ids, make, search } from "./helpers";

const hundred = (prefix: string) => Array.from({ length: 100 }, (_, i) => `${prefix}${i}`);

describe("search: lists at their limit", () => {
  it("answers IN and NOT_IN filters of 100 values, text and numbers, several in one search", async () => {
    const t = await tenant();
    const ann = await make(t, "contacts", { email: "ann@limits.test", firstname: "name7", lastname: "Lee" });
    const bob = await make(t, "contacts", { email: "bob@limits.test", firstname: "Bob", lastname: "name99" });
    const textIn = await search(t, "contacts", { filterGroups: [{ filters: [{ propertyName: "firstname", operator: "IN", values: hundred("NAME") }] }] });
    expect(textIn.status, textIn.text).toBe(200);
    expect(ids(textIn)).toEqual([ann]);
    const notIn = await search(t, "contacts", { filterGroups: [{ filters: [{ propertyName: "firstname", operator: "NOT_IN", values: hundred("name") }] }] });
    expect(ids(notIn)).toEqual([bob]);
    const three = await search(t, "contacts", {
      filterGroups: [
        { filters: [{ propertyName: "firstname", operator: "IN", values: hundred("name") }] },
        { filters: [{ propertyName: "lastname", operator: "IN", values: hundred("name") }] },
        { filters: [{ propertyName: "hs_object_id", operator: "IN", values: Array.from({ length: 100 }, (_, i) => String(i + 1)) }] },
      ],
    });
    expect(three.status, three.text).toBe(200);
    expect(ids(three)).toEqual([ann, bob]);

    const deal = await make(t, "deals", { dealname: "Limit", amount: "42" });
    const numbers = await search(t, "deals", { filterGroups: [{ filters: [{ propertyName: "amount", operator: "IN", values: Array.from({ length: 100 }, (_, i) => i) }] }] });
    expect(numbers.status, numbers.text).toBe(200);
    expect(ids(numbers)).toEqual([deal]);
  });

  it("refuses 101 values with a 400 that names the limit and the field", async () => {
    const t = await tenant();
    const res = await search(t, "contacts", { filterGroups: [{ filters: [{ propertyName: "firstname", operator: "IN", values: [...hundred("n"), "one more"] }] }] });
    const err = expectError(res, 400, "VALIDATION_ERROR");
    expect(JSON.stringify(err)).toContain("at most 100 values");
    expect(JSON.stringify(err)).toContain("values");
  });
});
