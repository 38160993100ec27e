/**
 * @module The record page's association controls (docs/reference/web.md, "Working on a record"): the labels
 * an association holds and its "Remove" button beside each associated record, the "Associate" search form
 * under them, and the page that finds a record of another type by name and associates it, with a label
 * where the account has labels for the pair.
 */
import type { ObjectType } from "../db/tables/crm";
import { escapeHtml } from "../lib/html";
import type { CrmRow } from "../services/crm/records";
import { displayName, typeLabel, type PageType } from "../services/web/records";
import { csrfField, emptyForm, formErrors, inputField, selectField, type FormState } from "./forms";

const e = escapeHtml;

/** What the association controls of one record page need. */
export interface AssociationContext {
  /** The record's page path, `/app/contacts/12`. */
  path: string;
  csrf: string;
  /** The labels each association holds, by `toType:toId`. */
  labels: Map<string, string[]>;
  /** The types a record of this type can be associated with. */
  associable: PageType[];
}

/** Beside an associated record: the labels it holds, and the button that removes the association. */
export function associationControls(c: AssociationContext, type: ObjectType, r: CrmRow): string {
  const labels = c.labels.get(`${type}:${r.id}`) ?? [];
  const shown = labels.length ? ` <span class="assoc-labels">${labels.map((l) => `<span class="badge badge-default">${e(l)}</span>`).join(" ")}</span>` : "";
  const removable = c.associable.includes(type as PageType);
  const remove = removable
    ? `<form class="inline-form" method="post" action="${e(c.path)}/associations/${type}/${r.id}/remove">${csrfField(c.csrf)}<button type="submit" class="small" aria-label="Remove association with ${e(displayName(r))}">Remove</button></form>`
    : "";
  return shown + remove;
}

/** Under the associations: choose a type and a name, then pick the record on the associate page. */
export function addAssociationForm(c: AssociationContext): string {
  if (c.associable.length === 0) return "";
  const options = c.associable.map((t) => ({ value: t, label: typeLabel(t).one }));
  const s = emptyForm();
  return `<form class="assoc-add" method="get" action="${e(c.path)}/associate" role="search" aria-label="Associate a record">
<div class="assoc-add-row">${selectField({ id: "assoc-type", name: "type", label: "Associate with", state: s, options, required: true })}${inputField({ id: "assoc-q", name: "q", label: "Name", state: s, type: "search", hint: "Part of the name (or email); empty lists the first records.", extra: 'maxlength="100" autocomplete="off"' })}<div class="form-buttons"><button type="submit">Find</button></div></div></form>`;
}

export interface AssociatePageView {
  record: CrmRow;
  path: string;
  csrf: string;
  type: PageType;
  associable: PageType[];
  q: string;
  rows: CrmRow[];
  hasMore: boolean;
  /** The pair's labels ("Primary", the account's); empty: only the unlabelled default. */
  labels: { typeId: number; label: string }[];
  /** Records already associated (shown as such). */
  associated: Set<number>;
  state?: FormState;
}

/** The associate page: the search form again, then each found record with its label choice and "Associate" button. */
export function associatePageBody(v: AssociatePageView): string {
  const s = v.state ?? emptyForm();
  const one = typeLabel(v.type).one.toLowerCase();
  const name = displayName(v.record);
  const search = `<form class="assoc-add" method="get" action="${e(v.path)}/associate" role="search" aria-label="Find a record">
<div class="assoc-add-row">${selectField({ id: "assoc-type", name: "type", label: "Type", state: { values: { type: v.type }, errors: {} }, options: v.associable.map((t) => ({ value: t, label: typeLabel(t).one })), required: true })}${inputField({ id: "assoc-q", name: "q", label: "Name", state: { values: { q: v.q }, errors: {} }, type: "search", extra: 'maxlength="100" autocomplete="off"' })}<div class="form-buttons"><button type="submit">Find</button></div></div></form>`;
  const labelOptions = [{ value: "", label: "No label" }, ...v.labels.map((l) => ({ value: String(l.typeId), label: l.label }))];
  const items = v.rows
    .map((r, i) => {
      const rowName = displayName(r);
      if (v.associated.has(r.id)) return `<li class="found"><a href="/app/${v.type}/${r.id}">${e(rowName)}</a> <span class="muted">(already associated)</span></li>`;
      const label = v.labels.length
        ? selectField({ id: `label-${i}`, name: "typeId", label: "Label", hiddenSuffix: `for ${rowName}`, state: emptyForm(), options: labelOptions })
        : "";
      return `<li class="found"><form class="found-form" method="post" action="${e(v.path)}/associations">${csrfField(v.csrf)}<input type="hidden" name="toType" value="${v.type}"><input type="hidden" name="toId" value="${r.id}">
<a href="/app/${v.type}/${r.id}">${e(rowName)}</a>${label}<div class="form-buttons"><button type="submit" aria-label="Associate ${e(rowName)}">Associate</button></div></form></li>`;
    })
    .join("");
  const list = v.rows.length
    ? `<ul class="found-list">${items}</ul>${v.hasMore ? `<p class="muted">More ${typeLabel(v.type).many.toLowerCase()} match: narrow the name.</p>` : ""}`
    : `<p class="empty">No ${typeLabel(v.type).many.toLowerCase()} ${v.q ? `match “${e(v.q)}”` : "yet"}.</p>`;
  return `<nav class="crumbs" aria-label="Breadcrumb"><a href="${e(v.path)}">${e(name)}</a></nav>
<h1>Associate ${e(name)} with a ${e(one)}</h1>${formErrors(s, [])}${search}<h2>Results</h2>${list}
<p><a href="${e(v.path)}#assoc-h">Back to ${e(name)}</a></p>`;
}
