/** Contract cases (see contract-cases.ts) of the lists: `/crm/v3/lists` and the legacy `/contacts/v1/lists/{listId}` face. */
import type { Case } from "./contract-cases";
import { api, ok, uniq, type Fixtures } from "./contract-fixtures";

const L = "/crm/v3/lists";
const V1 = "/contacts/v1/lists";
const branch = { filterBranchType: "OR", filters: [], filterBranches: [{ filterBranchType: "AND", filters: [{ filterType: "PROPERTY", property: "email", operation: { operationType: "ALL_PROPERTY", operator: "IS_KNOWN" } }], filterBranches: [] }] };
const made = async (f: Fixtures, processingType = "MANUAL", name = uniq("list")) =>
  (await ok(api("POST", L, { token: f.t.pat, json: { name, objectTypeId: "0-1", processingType, ...(processingType === "MANUAL" ? {} : { filterBranch: branch }) } }))).json.list as { listId: string; name: string };
const one = async (f: Fixtures, type?: string) => ({ listId: (await made(f, type)).listId });
const dynamicOne = (f: Fixtures) => one(f, "DYNAMIC");
const folder = async (f: Fixtures) => (await ok(api("POST", `${L}/folders`, { token: f.t.pat, json: { name: uniq("folder") } }))).json.folder as { id: number };

export function listCases(): Record<string, Case> {
  return {
    [`POST ${L}/search`]: { ok: (f) => ({ token: f.t.pat, json: { query: "list", count: 5 } }) },
    [`GET ${L}/records/{objectTypeId}/{recordId}/memberships`]: { ok: (f) => ({ token: f.t.pat, params: { objectTypeId: "0-1", recordId: f.contact } }) },
    [`GET ${L}/object-type-id/{objectTypeId}/name/{listName}`]: {
      ok: async (f) => ({ token: f.t.pat, params: { objectTypeId: "0-1", listName: (await made(f)).name } }),
    },
    [`POST ${L}`]: {
      ok: (f) => ({ token: f.t.pat, json: { name: uniq("list"), objectTypeId: "0-1", processingType: "DYNAMIC", filterBranch: branch } }),
      errors: { 409: async (f) => ({ token: f.t.pat, json: { name: (await made(f)).name, objectTypeId: "0-1", processingType: "MANUAL" } }) },
    },
    [`GET ${L}`]: {
      ok: async (f) => ({ token: f.t.pat, query: { listIds: (await made(f)).listId } }),
      errors: { 400: (f) => ({ token: f.t.pat, query: { listIds: "not-an-id" } }) },
    },
    [`GET ${L}/{listId}`]: { ok: async (f) => ({ token: f.t.pat, params: await one(f) }) },
    [`DELETE ${L}/{listId}`]: { ok: async (f) => ({ token: f.t.pat, params: await one(f) }) },
    [`PUT ${L}/{listId}/restore`]: {
      ok: async (f) => {
        const params = await one(f);
        await ok(api("DELETE", `${L}/${params.listId}`, { token: f.t.pat }), 204);
        return { token: f.t.pat, params };
      },
      errors: {
        409: async (f) => {
          const list = await made(f);
          await ok(api("DELETE", `${L}/${list.listId}`, { token: f.t.pat }), 204);
          await made(f, "MANUAL", list.name);
          return { token: f.t.pat, params: { listId: list.listId } };
        },
      },
    },
    [`PUT ${L}/{listId}/update-list-name`]: {
      ok: async (f) => ({ token: f.t.pat, params: await one(f), query: { listName: uniq("renamed") } }),
      errors: { 409: async (f) => ({ token: f.t.pat, params: await one(f), query: { listName: (await made(f)).name } }) },
    },
    [`PUT ${L}/{listId}/update-list-filters`]: { ok: async (f) => ({ token: f.t.pat, params: await dynamicOne(f), json: { filterBranch: branch } }) },
    [`GET ${L}/{listId}/memberships`]: { ok: async (f) => ({ token: f.t.pat, params: await one(f), query: { limit: "10" } }) },
    [`PUT ${L}/{listId}/memberships/add`]: {
      ok: async (f) => ({ token: f.t.pat, params: await one(f), json: [String(f.contact)] }),
      errors: { 400: async (f) => ({ token: f.t.pat, params: await dynamicOne(f), json: [String(f.contact)] }) },
    },
    [`PUT ${L}/{listId}/memberships/remove`]: {
      ok: async (f) => ({ token: f.t.pat, params: await one(f), json: [String(f.contact)] }),
      errors: { 400: async (f) => ({ token: f.t.pat, params: await dynamicOne(f), json: [String(f.contact)] }) },
    },
    [`PUT ${L}/{listId}/memberships/add-and-remove`]: {
      ok: async (f) => ({ token: f.t.pat, params: await one(f), json: { recordIdsToAdd: [String(f.contact)], recordIdsToRemove: [] } }),
      errors: { 400: async (f) => ({ token: f.t.pat, params: await dynamicOne(f), json: { recordIdsToAdd: [String(f.contact)], recordIdsToRemove: [] } }) },
    },
    [`DELETE ${L}/{listId}/memberships`]: {
      ok: async (f) => ({ token: f.t.pat, params: await one(f) }),
      errors: { 400: async (f) => ({ token: f.t.pat, params: await dynamicOne(f) }) },
    },
    [`GET ${L}/{listId}/memberships/join-order`]: {
      ok: async (f) => ({ token: f.t.pat, params: await one(f), query: { limit: "10" } }),
      errors: { 400: async (f) => ({ token: f.t.pat, params: await one(f), query: { after: "12" } }) },
    },
    [`PUT ${L}/{listId}/memberships/add-from/{sourceListId}`]: {
      ok: async (f) => ({ token: f.t.pat, params: { listId: (await one(f)).listId, sourceListId: (await dynamicOne(f)).listId } }),
      errors: { 400: async (f) => ({ token: f.t.pat, params: { listId: (await dynamicOne(f)).listId, sourceListId: (await one(f)).listId } }) },
    },
    [`POST ${L}/records/memberships/batch/read`]: {
      ok: (f) => ({ token: f.t.pat, json: { inputs: [{ objectTypeId: "0-1", recordId: String(f.contact) }] } }),
      errors: { 400: (f) => ({ token: f.t.pat, json: { inputs: [] } }) },
    },
    [`GET ${L}/folders`]: {
      ok: async (f) => ({ token: f.t.pat, query: { folderId: String((await folder(f)).id) } }),
      errors: { 400: (f) => ({ token: f.t.pat, query: { folderId: "x" } }), 404: (f) => ({ token: f.t.pat, query: { folderId: "999999" } }) },
    },
    [`POST ${L}/folders`]: {
      ok: (f) => ({ token: f.t.pat, json: { name: uniq("folder") } }),
      errors: { 404: (f) => ({ token: f.t.pat, json: { name: uniq("folder"), parentFolderId: "999999" } }) },
    },
    [`PUT ${L}/folders/move-list`]: {
      ok: async (f) => ({ token: f.t.pat, json: { listId: (await one(f)).listId, newFolderId: String((await folder(f)).id) } }),
      errors: { 404: (f) => ({ token: f.t.pat, json: { listId: "999999", newFolderId: "0" } }) },
    },
    [`PUT ${L}/folders/{folderId}/move/{newParentFolderId}`]: {
      ok: async (f) => ({ token: f.t.pat, params: { folderId: String((await folder(f)).id), newParentFolderId: "0" } }),
    },
    [`PUT ${L}/folders/{folderId}/rename`]: {
      ok: async (f) => ({ token: f.t.pat, params: { folderId: String((await folder(f)).id) }, query: { newFolderName: uniq("renamed") } }),
    },
    [`DELETE ${L}/folders/{folderId}`]: {
      ok: async (f) => ({ token: f.t.pat, params: { folderId: String((await folder(f)).id) } }),
      errors: { 400: (f) => ({ token: f.t.pat, params: { folderId: "0" } }) },
    },
    [`GET ${L}/idmapping`]: {
      ok: async (f) => ({ token: f.t.pat, query: { legacyListId: (await one(f)).listId } }),
      errors: { 400: (f) => ({ token: f.t.pat, query: { legacyListId: "x" } }) },
    },
    [`POST ${L}/idmapping`]: {
      ok: async (f) => ({ token: f.t.pat, json: [(await one(f)).listId] }),
      errors: { 400: (f) => ({ token: f.t.pat, json: [] }) },
    },
    [`GET ${V1}`]: {
      ok: (f) => ({ token: f.t.pat, query: { count: "5" } }),
      errors: { 400: (f) => ({ token: f.t.pat, query: { count: "0" } }) },
    },
    [`POST ${V1}`]: {
      ok: (f) => ({ token: f.t.pat, json: { name: uniq("v1list") } }),
      errors: { 409: async (f) => ({ token: f.t.pat, json: { name: (await made(f)).name } }) },
    },
    [`GET ${V1}/{listId}`]: { ok: async (f) => ({ token: f.t.pat, params: await one(f) }) },
    [`DELETE ${V1}/{listId}`]: { ok: async (f) => ({ token: f.t.pat, params: await one(f) }) },
    [`GET ${V1}/{listId}/contacts/all`]: { ok: async (f) => ({ token: f.t.pat, params: await one(f), query: { count: "5" } }) },
    [`POST ${V1}/{listId}/add`]: {
      ok: async (f) => ({ token: f.t.pat, params: await one(f), json: { vids: [f.contact] } }),
      errors: { 400: async (f) => ({ token: f.t.pat, params: await dynamicOne(f), json: { vids: [f.contact] } }) },
    },
    [`POST ${V1}/{listId}/remove`]: {
      ok: async (f) => ({ token: f.t.pat, params: await one(f), json: { vids: [f.contact] } }),
      errors: { 400: async (f) => ({ token: f.t.pat, params: await dynamicOne(f), json: { vids: [f.contact] } }) },
    },
  };
}
