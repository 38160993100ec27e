/**
 * @module Pieces of the web app's forms (docs/reference/web.md, "Forms"): every field has its label, an error
 * is written next to the field it names and tied to it (`aria-describedby`, `aria-invalid`), and every POST
 * form carries the session's CSRF token. Values are escaped here.
 */
import { escapeHtml } from "../lib/html";

const e = escapeHtml;

/** A form's values and the errors by field name, as posted (kept when the form is shown again). */
export interface FormState {
  values: Record<string, string>;
  errors: Record<string, string>;
}

export const emptyForm = (): FormState => ({ values: {}, errors: {} });

export const csrfField = (csrf: string) => `<input type="hidden" name="csrf" value="${e(csrf)}">`;

interface FieldOptions {
  /** The id of the input (unique on the page) and the field's name. */
  id: string;
  name: string;
  label: string;
  state: FormState;
  required?: boolean;
  hint?: string;
  /** Read out after the label but not shown (a row's field: "Label" for Acme). */
  hiddenSuffix?: string;
}

/** The label, the hint and the error of a field around its control (`control` gets the shared attributes). */
function wrap(o: FieldOptions, control: (attrs: string) => string): string {
  const error = o.state.errors[o.name];
  const described = [o.hint ? `${o.id}-hint` : "", error ? `${o.id}-error` : ""].filter(Boolean).join(" ");
  const attrs = `id="${e(o.id)}" name="${e(o.name)}"${o.required ? " required" : ""}${described ? ` aria-describedby="${described}"` : ""}${error ? ' aria-invalid="true"' : ""}`;
  return `<div class="field${error ? " has-error" : ""}"><label for="${e(o.id)}">${e(o.label)}${o.hiddenSuffix ? `<span class="visually-hidden"> ${e(o.hiddenSuffix)}</span>` : ""}${o.required ? "" : ' <span class="muted">(optional)</span>'}</label>${
    o.hint ? `<p class="hint" id="${e(o.id)}-hint">${e(o.hint)}</p>` : ""
  }${control(attrs)}${error ? `<p class="field-error" id="${e(o.id)}-error">${e(error)}</p>` : ""}</div>`;
}

export function inputField(o: FieldOptions & { type?: string; extra?: string }): string {
  const value = o.state.values[o.name] ?? "";
  return wrap(o, (attrs) => `<input type="${o.type ?? "text"}" ${attrs} value="${e(value)}"${o.extra ? ` ${o.extra}` : ""}>`);
}

export function textareaField(o: FieldOptions & { rows?: number; maxlength?: number }): string {
  const value = o.state.values[o.name] ?? "";
  return wrap(o, (attrs) => `<textarea ${attrs} rows="${o.rows ?? 3}"${o.maxlength ? ` maxlength="${o.maxlength}"` : ""}>${e(value)}</textarea>`);
}

export function selectField(o: FieldOptions & { options: { value: string; label: string }[]; selected?: string }): string {
  const chosen = o.state.values[o.name] ?? o.selected ?? "";
  const options = o.options.map((opt) => `<option value="${e(opt.value)}"${opt.value === chosen ? " selected" : ""}>${e(opt.label)}</option>`).join("");
  return wrap(o, (attrs) => `<select ${attrs}>${options}</select>`);
}

/** The errors that name no field of the form, above it. */
export function formErrors(state: FormState, fields: string[]): string {
  const loose = Object.entries(state.errors).filter(([name]) => !fields.includes(name));
  if (loose.length === 0) return "";
  return `<div class="form-errors" role="alert">${loose.map(([, message]) => `<p class="error">${e(message)}</p>`).join("")}</div>`;
}
