/**
 * @module Serves the static files of public/ from the Worker (issue 17 §6).
 *
 * The files are bundled into src/generated/static-files.ts by scripts/build-static.mjs (wrangler's
 * `[build] command`, vitest.config.ts, `npm run typecheck`). Workers static assets are not used because
 * with `[assets]` wrangler dev's scheduled trigger (`/cdn-cgi/handler/scheduled`) answers 500.
 * Like static assets, a GET or HEAD of a file's path answers the file; every other request (unknown path,
 * other method) goes on to the router, so its 404/405 envelope is unchanged.
 */
import { STATIC_FILES } from "../generated/static-files";

/** One file of public/, as the generator writes it. */
export interface StaticFile {
  /** Content-Type, with charset for text. */
  type: string;
  /** Strong ETag (a hash of the bytes), so `Cache-Control: no-cache` revalidates with a 304. */
  etag: string;
  /** Headers public/_headers gives the path, in order. */
  headers: [string, string][];
  text?: string;
  base64?: string;
}

const decoded = new Map<string, Uint8Array>();

function body(path: string, file: StaticFile): string | Uint8Array {
  if (file.text !== undefined) return file.text;
  let bytes = decoded.get(path);
  if (!bytes) {
    bytes = Uint8Array.from(atob(file.base64 ?? ""), (c) => c.charCodeAt(0));
    decoded.set(path, bytes);
  }
  return bytes;
}

/** The file's response, or null when the request is not a GET/HEAD of a file under public/. */
export function serveStatic(request: Request, files: Readonly<Record<string, StaticFile>> = STATIC_FILES): Response | null {
  if (request.method !== "GET" && request.method !== "HEAD") return null;
  const path = new URL(request.url).pathname;
  const file = Object.hasOwn(files, path) ? files[path] : undefined;
  if (!file) return null;
  const headers = new Headers(file.headers);
  headers.set("Content-Type", file.type);
  headers.set("ETag", file.etag);
  const match = request.headers.get("If-None-Match");
  if (match && match.split(",").some((tag) => tag.trim().replace(/^W\//, "") === file.etag || tag.trim() === "*")) {
    headers.delete("Content-Type");
    return new Response(null, { status: 304, headers });
  }
  return new Response(request.method === "HEAD" ? null : body(path, file), { status: 200, headers });
}
