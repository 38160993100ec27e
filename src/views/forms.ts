/**
 * @module The record forms of the web app (docs/reference/web.md "Forms"): a field per property by its
 * field type, the create and edit pages, the one-property edit and the delete confirmation. Errors sit next
 * to the field they name (`aria-describedby`, `aria-invalid`) and in a summary at the top; a re-shown form
 * keeps what was typed. Every form posts the session's CSRF token as `csrf`.
 */
import type { CustomType } from "../db/tables/crm";
import { escapeHtml } from "../lib/html";
import type { PropertyDef } from "../services/crm/properties";
import type { PropertyGroupDef } from "../services/crm/property-groups";
import { isEditable } from "../services/web/properties";
import { typeLabel, type RecordType } from "../services/web/records";

const e = escapeHtml;

export type FormType = RecordType | CustomType;

export interface FieldOptions {
  /** Prefix of element ids, so several forms on one page do not clash. */
  idPrefix: string;
  value: string;
  error?: string;
  required?: boolean;
  /** The label is read by screen readers only (the inline edit sits beside a visible label). */
  quietLabel?: boolean;
}

const fieldId = (o: FieldOptions, name: string) => `${o.idPrefix}${name.replace(/[^A-Za-z0-9_-]/g, "_")}`;

/** The error under a field, and the attributes that tie it to the control. */
function errorParts(id: string, error: string | undefined) {
  if (!error) return { attrs: "", html: "" };
  return { attrs: ` aria-invalid="true" aria-describedby="${id}-error"`, html: `<p class="field-error" id="${id}-error">${e(error)}</p>` };
}

/** Options in display order; a stage's options are grouped by their pipeline (the option's description). */
function selectOptions(d: PropertyDef, value: string, required: boolean): string {
  const opts = d.options.filter((o) => !o.hidden || o.value === value);
  const option = (o: { value: string; label: string }) => `<option value="${e(o.value)}"${o.value === value ? " selected" : ""}>${e(o.label)}</option>`;
  // A value the options do not know (written before, or by an unchecked path) stays choosable.
  const stray = value && !opts.some((o) => o.value === value) ? option({ value, label: value }) : "";
  const empty = required ? "" : `<option value="">—</option>`;
  const grouped = (d.name === "dealstage" || d.name === "hs_pipeline_stage") && new Set(opts.map((o) => o.description)).size > 1;
  if (!grouped) return empty + stray + opts.map(option).join("");
  const groups = new Map<string, typeof opts>();
  for (const o of opts) groups.set(o.description, [...(groups.get(o.description) ?? []), o]);
  return empty + stray + [...groups].map(([label, os]) => `<optgroup label="${e(label)}">${os.map(option).join("")}</optgroup>`).join("");
}

/** One property's control with its label and error. */
export function fieldHtml(d: PropertyDef, o: FieldOptions): string {
  const id = fieldId(o, d.name);
  const name = `p:${d.name}`;
  const err = errorParts(id, o.error);
  const req = o.required ? " required" : "";
  const labelText = `${e(d.label)}${o.required ? ` <span class="required">(required)</span>` : ""}`;
  const label = `<label for="${id}"${o.quietLabel ? ' class="visually-hidden"' : ""}>${labelText}</label>`;
  const help = d.description && !o.quietLabel ? `<p class="field-help" id="${id}-help">${e(d.description)}</p>` : "";
  const described = [o.error ? `${id}-error` : "", help ? `${id}-help` : ""].filter(Boolean).join(" ");
  const attrs = `${o.error ? ' aria-invalid="true"' : ""}${described ? ` aria-describedby="${described}"` : ""}`;
  const group = (control: string) => `<fieldset class="field choice"${err.attrs}><legend${o.quietLabel ? ' class="visually-hidden"' : ""}>${labelText}</legend>${help}${control}${err.html}</fieldset>`;
  const v = o.value;
  if (d.type === "enumeration" && d.options.length > 0) {
    if (d.fieldType === "checkbox") {
      const chosen = new Set(v.split(";"));
      const boxes = d.options
        .filter((x) => !x.hidden || chosen.has(x.value))
        .map((x, i) => `<label class="check"><input type="checkbox" name="c:${e(d.name)}:${i}" value="${e(x.value)}"${chosen.has(x.value) ? " checked" : ""}> ${e(x.label)}</label>`)
        .join("");
      return group(`<input type="hidden" name="${e(name)}" value="">${boxes}`);
    }
    if (d.fieldType === "radio") {
      const radios = d.options
        .filter((x) => !x.hidden || x.value === v)
        .map((x) => `<label class="check"><input type="radio" name="${e(name)}" value="${e(x.value)}"${x.value === v ? " checked" : ""}${req}> ${e(x.label)}</label>`)
        .join("");
      const none = o.required ? "" : `<label class="check"><input type="radio" name="${e(name)}" value=""${v === "" ? " checked" : ""}> None</label>`;
      return group(radios + none);
    }
    return `<div class="field">${label}${help}<select id="${id}" name="${e(name)}"${req}${attrs}>${selectOptions(d, v, !!o.required)}</select>${err.html}</div>`;
  }
  if (d.type === "bool" || d.fieldType === "booleancheckbox") {
    const opt = (value: string, text: string) => `<option value="${value}"${v === value ? " selected" : ""}>${text}</option>`;
    return `<div class="field">${label}${help}<select id="${id}" name="${e(name)}"${req}${attrs}>${o.required ? "" : opt("", "—")}${opt("true", "Yes")}${opt("false", "No")}</select>${err.html}</div>`;
  }
  if (d.fieldType === "textarea") {
    return `<div class="field">${label}${help}<textarea id="${id}" name="${e(name)}" rows="4" maxlength="65536"${req}${attrs}>${e(v)}</textarea>${err.html}</div>`;
  }
  const type =
    d.type === "number" ? 'type="number" step="any" inputmode="decimal"' : d.type === "date" ? 'type="date"' : d.type === "datetime" ? 'type="datetime-local"' : d.name === "email" ? 'type="email" autocomplete="off"' : 'type="text"';
  return `<div class="field">${label}${help}<input id="${id}" name="${e(name)}" ${type} value="${e(v)}" maxlength="65536"${req}${attrs}>${err.html}</div>`;
}

/** Editable properties in the order people read them: by display order (unset last), then label. */
export function formOrder(defs: PropertyDef[]): PropertyDef[] {
  const rank = (d: PropertyDef) => (d.displayOrder < 0 ? Number.MAX_SAFE_INTEGER : d.displayOrder);
  return [...defs].sort((a, b) => rank(a) - rank(b) || a.label.localeCompare(b.label));
}

/** Properties by group, in the groups' order; a property whose group is not listed goes to the first group. */
export function byGroup(defs: PropertyDef[], groups: PropertyGroupDef[]): { group: PropertyGroupDef; defs: PropertyDef[] }[] {
  const known = new Set(groups.map((g) => g.name));
  return groups
    .map((group, i) => ({ group, defs: formOrder(defs.filter((d) => d.groupName === group.name || (i === 0 && !known.has(d.groupName)))) }))
    .filter((g) => g.defs.length > 0);
}

export interface FormView {
  type: FormType;
  csrf: string;
  defs: PropertyDef[];
  groups: PropertyGroupDef[];
  /** The field values as the inputs show them. */
  values: Record<string, string>;
  errors: Record<string, string>;
  /** A custom type's required properties. */
  required?: string[];
  /** Editing this record (else creating one). */
  record?: { id: number; name: string };
  /** Only this property (the one-property edit). */
  only?: string;
}

/** The errors at the top: the form's own, then one link per field in error. */
function errorSummary(v: FormView, defs: PropertyDef[]): string {
  const general = v.errors[""];
  const fields = defs.filter((d) => v.errors[d.name]);
  // Errors naming a property that is not on the form (the API names what it checked).
  const stray = Object.entries(v.errors).filter(([k]) => k !== "" && !defs.some((d) => d.name === k));
  if (!general && fields.length === 0 && stray.length === 0) return "";
  const items = [
    ...(general ? [`<li>${e(general)}</li>`] : []),
    ...fields.map((d) => `<li><a href="#f-${e(d.name.replace(/[^A-Za-z0-9_-]/g, "_"))}">${e(d.label)}: ${e(v.errors[d.name]!)}</a></li>`),
    ...stray.map(([k, m]) => `<li>${e(k)}: ${e(m)}</li>`),
  ];
  return `<div class="error-summary" role="alert" tabindex="-1"><h2>The ${v.record ? "changes were" : "record was"} not saved</h2><ul>${items.join("")}</ul></div>`;
}

export function formBody(v: FormView): string {
  const label = typeLabel(v.type);
  const editable = v.defs.filter((d) => isEditable(d) && (!v.only || d.name === v.only));
  const required = new Set(v.required ?? []);
  const groups = byGroup(editable, v.groups)
    .map(
      ({ group, defs }) =>
        `<fieldset class="group"><legend>${e(group.label)}</legend>${defs.map((d) => fieldHtml(d, { idPrefix: "f-", value: v.values[d.name] ?? "", error: v.errors[d.name], required: required.has(d.name) })).join("")}</fieldset>`,
    )
    .join("");
  const title = v.record ? (v.only ? `Edit ${editable[0]?.label ?? v.only}` : `Edit ${v.record.name}`) : `New ${label.one.toLowerCase()}`;
  const action = v.record ? `/app/${v.type}/${v.record.id}` : `/app/${v.type}`;
  const back = v.record ? `/app/${v.type}/${v.record.id}` : `/app/${v.type}`;
  const crumb = v.record ? `<a href="${back}">${e(v.record.name)}</a>` : `<a href="/app/${v.type}">${e(label.many)}</a>`;
  return `<nav class="crumbs" aria-label="Breadcrumb">${crumb}</nav><h1>${e(title)}</h1>${errorSummary(v, editable)}
<form class="record-form" method="post" action="${action}" novalidate><input type="hidden" name="csrf" value="${e(v.csrf)}">
${groups || `<p class="empty">${e(label.many)} have no properties to edit.</p>`}
<div class="form-buttons"><button type="submit" class="primary">${v.record ? "Save" : `Create ${label.one.toLowerCase()}`}</button><a class="button" href="${back}">Cancel</a></div></form>`;
}

export function deleteBody(type: FormType, record: { id: number; name: string }, csrf: string): string {
  const label = typeLabel(type);
  return `<nav class="crumbs" aria-label="Breadcrumb"><a href="/app/${type}/${record.id}">${e(record.name)}</a></nav>
<h1>Delete ${e(record.name)}?</h1><p>The ${e(label.one.toLowerCase())} is moved to the recycling bin: the API can still read it with <code>archived=true</code>, and apps subscribed to deletions are told.</p>
<form method="post" action="/app/${type}/${record.id}/delete"><input type="hidden" name="csrf" value="${e(csrf)}">
<div class="form-buttons"><button type="submit" class="danger">Delete ${e(label.one.toLowerCase())}</button><a class="button" href="/app/${type}/${record.id}">Cancel</a></div></form>`;
}

/** "New <type>" above a type's list. */
export const newRecordLink = (type: FormType) => `<p class="page-actions"><a class="button primary" href="/app/${type}/new">New ${e(typeLabel(type).one.toLowerCase())}</a></p>`;
