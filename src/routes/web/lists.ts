/**
 * @module The web app's record lists (docs/reference/web.md "Lists"): `GET /app/{type}` with search,
 * filters, sort, chosen columns and keyset paging, all in the URL query. A query the list cannot honour
 * (a bad operator, an unknown property, a value that is not a number, a stale cursor) is a 400 page
 * naming each problem, never a 500.
 */
import { pageSession } from "../../http/app-session";
import type { AuthRule } from "../../http/auth";
import { route } from "../../http/route";
import { isCustomType } from "../../db/tables/crm";
import { ApiError } from "../../lib/errors";
import { queryObject, validate } from "../../lib/http";
import { listProperties } from "../../services/crm/properties";
import { stageNames } from "../../services/pipelines/read";
import { listPage, nameProperty } from "../../services/web/lists";
import { customPageType, customSummary, isPageType, ownersOf, typeLabel } from "../../services/web/records";
import { appPage, notFoundPage } from "../../views/layout";
import { listBody, listErrorBody } from "../../views/lists";
import { newRecordLink } from "../../views/forms";
import { listParams } from "../../schemas/web";
import { listPageQuery } from "../../schemas/web-lists";

const session: AuthRule = { kinds: ["session"] };
const page = { 200: { description: "HTML page" }, 302: { description: "Not signed in: to /login?next=..." } };

/** The messages of a refused list query, each naming its field. */
function problemsOf(err: ApiError): string[] {
  const listed = (err.init.errors ?? []).map((d) => d.message);
  return listed.length ? listed : [err.message];
}

export const listRoutes = [
  route({
    method: "GET",
    path: "/app/:objectType",
    summary: "Records of one type: search, filters, sort, chosen columns, keyset pages",
    tag: "Web app",
    auth: session,
    params: listParams,
    hidden: true,
    responses: { ...page, 400: { description: "A query the list cannot honour (HTML page naming each problem)" }, 404: { description: "Unknown object type" } },
    handler: async ({ db, control, request, url, now, params }) => {
      const user = await pageSession(control, request, url, now);
      if (user instanceof Response) return user;
      const type = isPageType(params.objectType) ? params.objectType : await customPageType(db, user.portalId, params.objectType);
      if (!type) return notFoundPage(user, "home", "There is no such list.");
      const section = isCustomType(type) ? "home" : type;
      const title = typeLabel(type).many;
      try {
        const query = validate(listPageQuery, queryObject(url), "query");
        const properties = await listProperties(db, user.portalId, type);
        const unknown = query.columns.filter((c) => !properties.some((p) => p.name === c));
        if (unknown.length) return appPage({ title, section, user, status: 400, body: listErrorBody(type, unknown.map((c) => `col: ${typeLabel(type).many.toLowerCase()} have no property ${c}`)) });
        const staged = type === "deals" || type === "tickets";
        const [{ rows, next }, stages, summary] = await Promise.all([
          listPage(db, user.portalId, type, {
            filters: query.filters,
            sort: query.sort ? { propertyName: query.sort, direction: query.dir } : undefined,
            q: query.q || undefined,
            after: query.after,
          }),
          staged ? stageNames(db, user.portalId, type) : undefined,
          isCustomType(type) ? customSummary(db, user.portalId, type) : undefined,
        ]);
        const owners = await ownersOf(control, user.portalId, rows);
        const state = { q: query.q, sort: query.sort, dir: query.dir, columns: query.columns, filters: query.filters };
        const body = newRecordLink(type) + listBody({ type, rows, state, paged: !!query.after, next, properties, nameProperty: nameProperty(type), owners, stages, summary });
        return appPage({ title, section, user, body, scripts: ["app.js"] });
      } catch (err) {
        if (err instanceof ApiError && err.category === "VALIDATION_ERROR") return appPage({ title, section, user, status: 400, body: listErrorBody(type, problemsOf(err)) });
        throw err;
      }
    },
  }),
];
