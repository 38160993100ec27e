/**
 * Event types are the app's, across every account it is installed in: an install's OAuth token may delete
 * or replace (PUT) a type only while no other account holds events of it; beyond that it takes the app's
 * developer key. The token keeps its other setup rights (create, read, properties).
 */
import { describe, expect, it } from "vitest";
import { admin, call, expectError, tenant } from "../helpers/api";
import { createRecord, createType, dev, getEvent, putEvent, typesPath } from "./helpers";

const oauth = (token: string, method: string, path: string, body?: unknown) => call(method, path, { token, body });

/** App of `a`, installed in `a` and in a second account; `b` is the second install's token. */
async function twoInstalls() {
  const a = await tenant();
  const other = await tenant();
  const b = (await admin("POST", `/admin/v1/accounts/${other.portalId}/installs`, { appId: a.appId })).access_token as string;
  return { a, other, b };
}

describe("app-wide event types and an install's OAuth token", () => {
  it("refuses (403) deleting or replacing a type with events in another account; the developer key may", async () => {
    const { a, other, b } = await twoInstalls();
    const type = await createType(a, { name: "Shared" });
    const contact = await createRecord(other, "contacts", { email: "o@example.com" });
    const stored = await putEvent({ ...a, oauth: b }, { id: "theirs", eventTypeId: type.id, objectId: contact });
    expect(stored.status, stored.text).toBe(204);

    const path = `${typesPath(a.appId)}/${type.id}`;
    const del = expectError(await oauth(a.oauth, "DELETE", path), 403, "FORBIDDEN");
    expect(del.message).toContain("developer key");
    expectError(await oauth(a.oauth, "PUT", path, { name: "Renamed" }), 403, "FORBIDDEN");
    // Nothing changed: the type, its name and the other account's event are all there.
    expect((await dev(a, "GET", path)).json.name).toBe("Shared");
    expect((await getEvent({ ...a, oauth: b }, type.id, "theirs", b)).status).toBe(200);

    expect((await dev(a, "PUT", path, { name: "Renamed" })).status).toBe(200);
    expect((await dev(a, "DELETE", path)).status).toBe(204);
    expect((await getEvent({ ...a, oauth: b }, type.id, "theirs", b)).status).toBe(404);
  });

  it("keeps the token's other setup rights, and delete and replace while only its own account has events", async () => {
    const { a } = await twoInstalls();
    const made = await oauth(a.oauth, "POST", typesPath(a.appId), { name: "Mine" });
    expect(made.status, made.text).toBe(200);
    const path = `${typesPath(a.appId)}/${made.json.id}`;
    expect((await oauth(a.oauth, "POST", `${path}/properties`, { name: "p", label: "P", propertyType: "String" })).status).toBe(200);
    expect((await oauth(a.oauth, "GET", `${path}/properties`)).status).toBe(200);
    const contact = await createRecord(a, "contacts", { email: "mine@example.com" });
    expect((await putEvent(a, { id: "own", eventTypeId: made.json.id, objectId: contact })).status).toBe(204);
    expect((await oauth(a.oauth, "PUT", path, { name: "Mine 2" })).status).toBe(200);
    expect((await oauth(a.oauth, "DELETE", path)).status).toBe(204);
  });
});
