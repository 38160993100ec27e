/**
 * @module Rendering one timeline event to HTML (docs/reference/timeline.md): the event type's Handlebars
 * templates are evaluated with the event's properties as data (extraData only in the detail template), then
 * the Markdown result is turned into HTML. Pure: the API's timeline and the record page both call it.
 *
 * Safety: the Markdown renderer is the only producer of HTML. Raw HTML written in a template or carried in a
 * value is escaped (not passed through), text is escaped by marked, and links and images keep only http(s),
 * mailto and relative URLs, so no script can reach a timeline.
 */
import { Marked, type Tokens } from "marked";
import { escapeHtml } from "../../lib/html";
import type { TimelineObjectType } from "../../db/tables/timeline";
import { evaluate, parseTemplate, type Template } from "./template";

export interface RenderableType {
  name: string;
  objectType: TimelineObjectType;
  headerTemplate: string | null;
  detailTemplate: string | null;
}

export interface RenderableEvent {
  eventId: string;
  eventTypeId: number;
  objectId: number | null;
  email: string | null;
  utk: string | null;
  timestamp: number;
  properties: Record<string, string>;
  extraData: unknown;
}

export interface RenderedEvent {
  headerHtml: string;
  detailHtml: string;
}

const SAFE_URL = /^(?:https?:|mailto:|[^:]*$)/i;

/** The URL if its scheme is allowed (a colon after the first /, ? or # is not a scheme). */
export function safeUrl(href: string): string | null {
  const url = href.trim();
  const schemeEnd = url.search(/[/?#]/);
  const head = schemeEnd === -1 ? url : url.slice(0, schemeEnd);
  // Control characters and whitespace inside a scheme are how "java\tscript:" tricks slip through.
  if ([...head].some((ch) => ch.charCodeAt(0) <= 0x20)) return null;
  return SAFE_URL.test(head) ? url : null;
}

const markdown = new Marked({
  async: false,
  gfm: true,
  breaks: false,
  renderer: {
    html(token: Tokens.HTML | Tokens.Tag) {
      return escapeHtml(token.text);
    },
    link(token: Tokens.Link) {
      const text = this.parser.parseInline(token.tokens);
      const href = safeUrl(token.href);
      if (!href) return text;
      const title = token.title ? ` title="${escapeHtml(token.title)}"` : "";
      return `<a href="${escapeHtml(href)}"${title} rel="noopener noreferrer nofollow">${text}</a>`;
    },
    image(token: Tokens.Image) {
      const src = safeUrl(token.href);
      if (!src || !/^https?:/i.test(src)) return escapeHtml(token.text);
      const title = token.title ? ` title="${escapeHtml(token.title)}"` : "";
      return `<img src="${escapeHtml(src)}" alt="${escapeHtml(token.text)}"${title}>`;
    },
  },
});

export function markdownToHtml(source: string): string {
  return markdown.parse(source, { async: false }).trim();
}

/** Parsed templates by source text: parsing is the costly step and event types rarely change. */
const parsed = new Map<string, Template>();
const PARSED_CACHE_SIZE = 500;

function template(source: string): Template {
  let tpl = parsed.get(source);
  if (!tpl) {
    tpl = parseTemplate(source);
    if (parsed.size >= PARSED_CACHE_SIZE) parsed.delete(parsed.keys().next().value as string);
    parsed.set(source, tpl);
  }
  return tpl;
}

/**
 * The data templates see: custom properties plus the event's own fields (they never clash: a property cannot
 * take an event field's name).
 */
export function templateData(type: RenderableType, event: RenderableEvent, withExtraData: boolean): Record<string, unknown> {
  const data: Record<string, unknown> = {
    ...event.properties,
    id: event.eventId,
    eventTypeId: event.eventTypeId,
    objectId: event.objectId,
    objectType: type.objectType,
    timestamp: event.timestamp,
  };
  if (event.email) data.email = event.email;
  if (event.utk) data.utk = event.utk;
  // extraData is visible to the detail template only.
  if (withExtraData && event.extraData !== null && event.extraData !== undefined) data.extraData = event.extraData;
  return data;
}

function renderOne(source: string, data: Record<string, unknown>): string {
  try {
    return markdownToHtml(evaluate(template(source), data));
  } catch {
    // Templates are checked when saved, so this is only reachable by a stored template that no longer
    // parses (for example after a parser upgrade): show its text rather than failing the whole timeline.
    return `<p>${escapeHtml(source)}</p>`;
  }
}

/** Renders an event's header and detail. Without a header template the type's name is the header. */
export function renderEvent(type: RenderableType, event: RenderableEvent): RenderedEvent {
  const headerHtml = type.headerTemplate
    ? renderOne(type.headerTemplate, templateData(type, event, false))
    : `<p>${escapeHtml(type.name)}</p>`;
  const detailHtml = type.detailTemplate ? renderOne(type.detailTemplate, templateData(type, event, true)) : "";
  return { headerHtml, detailHtml };
}
