/**
 * @module The deals board (docs/reference/web.md "Deals board"): `GET /app/deals/board?pipeline=<id>` and
 * the move of a card, `POST /app/deals/{id}/move`, a plain form post (stage select, CSRF token in `csrf`)
 * answered with a 303 back to the board. The move is the API's update (`checkValues`, then `updateObject`
 * inside `writeWithEvents`), so the stage must be one of the deal's pipeline, the account's webhook
 * subscriptions hear of it, and another account's deal is the same 404 page as a missing one.
 */
import { pageSession, CSRF_HEADER } from "../../http/app-session";
import type { AuthRule } from "../../http/auth";
import { route } from "../../http/route";
import { checkCsrf, readSession } from "../../http/session";
import { ApiError, badRequest } from "../../lib/errors";
import { checkValues } from "../../services/crm/values";
import { getObject, updateObject } from "../../services/crm/records";
import { livePipelines } from "../../services/pipelines/read";
import { writeWithEvents } from "../../services/webhooks/write";
import { boardColumns } from "../../services/web/board";
import { ownersOf } from "../../services/web/records";
import { appPage, notFoundPage } from "../../views/layout";
import { boardBody, moveErrorBody } from "../../views/board";
import { boardQuery, moveBody, moveParams } from "../../schemas/web-lists";

const session: AuthRule = { kinds: ["session"] };
const tag = "Web app";
/** Deals shown per column; the column says how many more it has. */
export const BOARD_PER_STAGE = 20;

const boardPath = (pipeline: string | undefined) => `/app/deals/board${pipeline ? `?pipeline=${encodeURIComponent(pipeline)}` : ""}`;

export const boardRoutes = [
  route({
    method: "GET",
    path: "/app/deals/board",
    summary: "The deals of one pipeline by stage, with counts and sums; each card moves to another stage",
    tag,
    auth: session,
    query: boardQuery,
    hidden: true,
    responses: { 200: { description: "HTML page" }, 302: { description: "Not signed in: to /login?next=..." }, 404: { description: "No such pipeline in the account" } },
    handler: async ({ db, control, request, url, now, query }) => {
      const user = await pageSession(control, request, url, now);
      if (user instanceof Response) return user;
      const pipelines = await livePipelines(db, user.portalId, "deals");
      const pipeline = query.pipeline ? pipelines.find((p) => p.id === query.pipeline) : pipelines[0];
      if (!pipeline) return notFoundPage(user, "deals", `There is no deal pipeline ${query.pipeline ?? ""}.`);
      const columns = await boardColumns(db, user.portalId, pipeline.id, pipeline.stages.map((s) => s.id), BOARD_PER_STAGE);
      const owners = await ownersOf(control, user.portalId, columns.flatMap((c) => c.deals));
      return appPage({
        title: `${pipeline.label} · Deals board`,
        section: "deals",
        user,
        body: boardBody({ pipelines, pipeline, columns, owners, csrf: user.csrfToken, perStage: BOARD_PER_STAGE }),
        scripts: ["board.js"],
      });
    },
  }),
  route({
    method: "POST",
    path: "/app/deals/:objectId/move",
    summary: "Move a deal to another stage of its pipeline (the board's form), then back to the board",
    tag,
    auth: session,
    params: moveParams,
    bodyFormat: "form",
    body: moveBody,
    hidden: true,
    responses: {
      303: { description: "Moved (or signed out: to /login); back to the board" },
      400: { description: "No stage, or a stage that is not one of the deal's pipeline (HTML page)" },
      403: { description: "CSRF token missing or wrong" },
      404: { description: "No such deal in the account" },
    },
    handler: async (ctx) => {
      const { db, control, request, now, params, body } = ctx;
      const back = boardPath(body.pipeline);
      const user = await readSession(control, request, now);
      if (!user) return new Response(null, { status: 303, headers: { location: `/login?next=${encodeURIComponent(back)}`, "cache-control": "no-store" } });
      // The form sends the token as `csrf`, as /logout's does; a script may send the header instead.
      checkCsrf(user, body.csrf ?? request.headers.get(CSRF_HEADER) ?? undefined);
      // Another account's deal is the same 404 as a missing one, before anything about the stage is said.
      const id = /^\d{1,15}$/.test(params.objectId) ? Number(params.objectId) : null;
      const deal = id === null ? null : await getObject(db, user.portalId, "deals", id).catch((err: unknown) => {
        if (err instanceof ApiError && err.category === "OBJECT_NOT_FOUND") return null;
        throw err;
      });
      if (!deal) return notFoundPage(user, "deals", "There is no such deal.");
      try {
        if (!body.dealstage) throw badRequest("dealstage: choose a stage");
        const properties = { dealstage: body.dealstage };
        await checkValues(ctx, user.portalId, "deals", [{ properties, at: "", id: deal.id }]);
        await writeWithEvents(ctx, user.portalId, (outbox) => updateObject(db, user.portalId, "deals", deal.id, properties, now, outbox), "CRM");
      } catch (err) {
        if (!(err instanceof ApiError) || err.category !== "VALIDATION_ERROR") throw err;
        const problems = (err.init.errors ?? []).map((d) => d.message);
        return appPage({ title: "Not moved", section: "deals", user, status: 400, body: moveErrorBody(problems.length ? problems : [err.message], back) });
      }
      return new Response(null, { status: 303, headers: { location: `${back}#deal-${deal.id}`, "cache-control": "no-store" } });
    },
  }),
];
