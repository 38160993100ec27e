/**
 * @module The record page's header actions and its properties section (docs/reference/web.md "Record
 * page"): the properties by group, each by its label and its value as people read it (views/values.ts),
 * each editable one with a small form of its own that opens in place; then a Details view with the internal
 * names and the stored values.
 */
import { escapeHtml } from "../lib/html";
import type { CrmRow } from "../services/crm/records";
import type { PropertyDef } from "../services/crm/properties";
import type { StageName } from "../services/pipelines/read";
import { inputOf } from "../services/web/form-values";
import { isEditable, type TypeProperties } from "../services/web/properties";
import { typeLabel } from "../services/web/records";
import { byGroup, fieldHtml, type FormType } from "./forms";
import { propertyValueHtml } from "./time";
import { valueHtml, type ValueContext } from "./values";

const e = escapeHtml;

export interface PropertiesView {
  type: FormType;
  record: CrmRow;
  props: TypeProperties;
  csrf: string;
  owners: Map<string, string>;
  stages?: Map<string, StageName> | null;
}

/** Edit and Delete beside the heading; products and line items, which have no list, also offer a new one. */
export function recordActions(type: FormType, id: number): string {
  const label = typeLabel(type).one.toLowerCase();
  const create = type === "products" || type === "line_items" ? `<a class="button" href="/app/${type}/new">New ${e(label)}</a>` : "";
  return `<div class="record-actions"><a class="button" href="/app/${type}/${id}/edit">Edit</a><a class="button danger" href="/app/${type}/${id}/delete">Delete</a>${create}</div>`;
}

/** The values the record answers from its columns. */
function systemValues(r: CrmRow): Record<string, string> {
  return { hs_object_id: String(r.id), createdate: new Date(r.createdAt).toISOString(), lastmodifieddate: new Date(r.updatedAt).toISOString(), hs_lastmodifieddate: new Date(r.updatedAt).toISOString() };
}

function inlineEdit(v: PropertiesView, d: PropertyDef, stored: string | undefined): string {
  const field = fieldHtml(d, { idPrefix: "i-", value: inputOf(d, stored, v.props.account.timeZone), quietLabel: true });
  return `<details class="inline-edit"><summary>Edit<span class="visually-hidden"> ${e(d.label)}</span></summary>
<form method="post" action="/app/${v.type}/${v.record.id}"><input type="hidden" name="csrf" value="${e(v.csrf)}"><input type="hidden" name="return" value="record">${field}<button type="submit" class="primary">Save</button></form></details>`;
}

/** Every stored property by its internal name and stored value (dates also as people read them, on hover). */
function detailsList(record: CrmRow): string {
  const values: [string, string][] = [...Object.entries(record.properties), ["hs_object_id", String(record.id)], ["createdate", new Date(record.createdAt).toISOString()], ["lastmodifieddate", new Date(record.updatedAt).toISOString()]];
  values.sort(([a], [b]) => a.localeCompare(b));
  return `<dl class="props">${values.map(([k, val]) => `<div><dt>${e(k)}</dt><dd>${propertyValueHtml(k, val, e)}</dd></div>`).join("")}</dl>`;
}

export function propertiesSection(v: PropertiesView): string {
  const stored = { ...v.record.properties, ...systemValues(v.record) };
  const c: ValueContext = {
    account: v.props.account,
    currency: v.type === "deals" ? v.record.properties.deal_currency_code?.trim().toUpperCase() : undefined,
    owners: v.owners,
    stages: v.stages ?? undefined,
  };
  // Shown: every visible property people may edit, and read-only ones that have a value.
  const shown = v.props.defs.filter((d) => !d.hidden && (isEditable(d) || stored[d.name] !== undefined) && d.name !== "hs_lastmodifieddate");
  const defined = new Set(v.props.defs.map((d) => d.name));
  const groups = byGroup(shown, v.props.groups)
    .map(({ group, defs }) => {
      const rows = defs
        .map((d) => {
          const value = stored[d.name];
          const text = value === undefined ? `<span class="muted" aria-label="No value">—</span>` : valueHtml(d, value, c);
          return `<div id="prop-${e(d.name)}"><dt>${e(d.label)}</dt><dd><span class="value">${text}</span>${isEditable(d) ? inlineEdit(v, d, value) : ""}</dd></div>`;
        })
        .join("");
      return `<h3>${e(group.label)}</h3><dl class="fields">${rows}</dl>`;
    })
    .join("");
  const undefinedCount = Object.keys(v.record.properties).filter((n) => !defined.has(n)).length;
  const other = undefinedCount ? `<p class="muted">${undefinedCount} stored ${undefinedCount === 1 ? "value has" : "values have"} no property definition: see Details.</p>` : "";
  return `${groups}${other}<details class="raw-props"><summary>Details: internal names and stored values</summary>${detailsList(v.record)}</details>`;
}
