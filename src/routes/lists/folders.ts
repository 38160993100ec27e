/**
 * @module `/crm/v3/lists/folders`: folders of the account's lists (docs/reference/lists.md "Folders"), as
 * @hubspot/api-client's FoldersApi calls them. Registered before the `/crm/v3/lists/{listId}` routes, whose
 * numeric id would otherwise refuse the path segment `folders`.
 */
import { portalOf } from "../../http/auth";
import { route } from "../../http/route";
import { json, noContent } from "../../lib/http";
import * as folders from "../../services/lists/folders";
import * as s from "../../schemas/lists";
import { LISTS_READ, LISTS_WRITE } from "./index";

const tag = "Lists";
const base = "/crm/v3/lists/folders";
const one = `${base}/:folderId`;
const notFound = { description: "No such folder (or list) in the account" };

export const folderRoutes = [
  route({
    method: "GET",
    path: base,
    summary: "A folder (default: the root folder, 0) with its whole subtree and the lists in each folder",
    tag,
    auth: LISTS_READ,
    query: s.folderQuery,
    responses: { 200: { description: "The folder", schema: s.folderResponse }, 404: notFound },
    handler: async ({ db, principal, query }) => json({ folder: await folders.folderTree(db, portalOf(principal), query.folderId ?? 0) }),
  }),
  route({
    method: "POST",
    path: base,
    summary: "Create a folder (in the root folder unless parentFolderId names another)",
    tag,
    auth: LISTS_WRITE,
    body: s.createFolderBody,
    responses: { 200: { description: "The folder", schema: s.folderResponse }, 404: notFound },
    handler: async ({ db, principal, body, now }) => json({ folder: await folders.createFolder(db, portalOf(principal), body.name, body.parentFolderId ?? 0, now) }),
  }),
  route({
    method: "PUT",
    path: `${base}/move-list`,
    summary: "Put a list in a folder (0: the root folder)",
    tag,
    auth: LISTS_WRITE,
    body: s.moveListBody,
    responses: { 204: { description: "Moved" }, 404: notFound },
    handler: async ({ db, principal, body, now }) => {
      await folders.moveList(db, portalOf(principal), body.listId, body.newFolderId, now);
      return noContent();
    },
  }),
  route({
    method: "PUT",
    path: `${one}/move/:newParentFolderId`,
    summary: "Move a folder under another (never under itself or its own subfolders)",
    tag,
    auth: LISTS_WRITE,
    params: s.moveFolderParams,
    responses: { 200: { description: "The folder", schema: s.folderResponse }, 404: notFound },
    handler: async ({ db, principal, params, now }) => json({ folder: await folders.moveFolder(db, portalOf(principal), params.folderId, params.newParentFolderId, now) }),
  }),
  route({
    method: "PUT",
    path: `${one}/rename`,
    summary: "Rename a folder",
    tag,
    auth: LISTS_WRITE,
    params: s.folderParams,
    query: s.renameFolderQuery,
    responses: { 200: { description: "The folder", schema: s.folderResponse }, 404: notFound },
    handler: async ({ db, principal, params, query, now }) => json({ folder: await folders.renameFolder(db, portalOf(principal), params.folderId, query.newFolderName, now) }),
  }),
  route({
    method: "DELETE",
    path: one,
    summary: "Delete an empty folder",
    tag,
    auth: LISTS_WRITE,
    params: s.folderParams,
    responses: { 204: { description: "Deleted" }, 400: { description: "Invalid input, the root folder, or a folder that holds folders or lists" }, 404: notFound },
    handler: async ({ db, principal, params }) => {
      await folders.removeFolder(db, portalOf(principal), params.folderId);
      return noContent();
    },
  }),
];
