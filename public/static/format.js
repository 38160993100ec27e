// @ts-check
/**
 * @module How card values look (spec 2.10; the data types of reference §5.3): STATUS as a colored badge
 * by option type, CURRENCY with its currency code through Intl.NumberFormat, EMAIL as a mailto link, LINK
 * as a link, DATE and DATETIME in the reader's locale. Values are untrusted: they only ever become text
 * nodes or checked href attributes, never markup.
 */

/** @typedef {"SUCCESS" | "DEFAULT" | "WARNING" | "DANGER" | "INFO"} OptionType */
/** @typedef {{ type: string, label: string, name: string }} StatusOption */
/**
 * A value and what is known about how to show it.
 * @typedef {{ dataType: string, value: unknown, currencyCode?: string, linkLabel?: string, optionType?: string, options?: StatusOption[] }} Shown
 */

const OPTION_TYPES = ["SUCCESS", "DEFAULT", "WARNING", "DANGER", "INFO"];

/**
 * Creates an element; string children become text nodes.
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {Record<string, string | boolean | undefined>} [attrs] `true` sets an empty attribute, false/undefined none
 * @param {...(Node | string | null | undefined)} children
 * @returns {HTMLElementTagNameMap[K]}
 */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === false) continue;
    el.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children) if (c !== null && c !== undefined) el.append(c);
  return el;
}

/** @param {unknown} s */
export function isHttpUrl(s) {
  if (typeof s !== "string") return false;
  try {
    const { protocol } = new URL(s);
    return protocol === "https:" || protocol === "http:";
  } catch {
    return false;
  }
}

/**
 * A defined property's value is a scalar or `{value, currencyCode?, linkLabel?}` (cards.md).
 * @param {unknown} raw
 * @returns {{ value: unknown, currencyCode?: string, linkLabel?: string }}
 */
export function unbox(raw) {
  if (raw !== null && typeof raw === "object" && !Array.isArray(raw)) {
    const o = /** @type {Record<string, unknown>} */ (raw);
    return {
      value: o.value,
      currencyCode: typeof o.currencyCode === "string" ? o.currencyCode : undefined,
      linkLabel: typeof o.linkLabel === "string" ? o.linkLabel : undefined,
    };
  }
  return { value: raw };
}

/**
 * @param {string} label
 * @param {string | undefined} type one of the option types; anything else is DEFAULT
 */
export function badge(label, type) {
  const t = type && OPTION_TYPES.includes(type) ? type : "DEFAULT";
  return h("span", { class: `badge badge-${t.toLowerCase()}` }, label);
}

/** @param {unknown} v */
function toNumber(v) {
  if (typeof v === "number") return v;
  if (typeof v === "string" && v.trim() !== "") return Number(v);
  return NaN;
}

/**
 * Epoch ms (number or digits) or an ISO 8601 string.
 * @param {unknown} v
 */
function toDate(v) {
  if (typeof v === "number" || (typeof v === "string" && /^-?\d+$/.test(v.trim()))) return new Date(Number(v));
  if (typeof v === "string") return new Date(v);
  return new Date(NaN);
}

/**
 * @param {number} n
 * @param {string | undefined} currency
 */
function money(n, currency) {
  if (!currency) return new Intl.NumberFormat().format(n);
  try {
    return new Intl.NumberFormat(undefined, { style: "currency", currency }).format(n);
  } catch {
    return `${new Intl.NumberFormat().format(n)} ${currency}`; // a code Intl does not know
  }
}

/**
 * The node that shows one value.
 * @param {Shown} p
 * @returns {Node}
 */
export function formatValue(p) {
  const v = p.value;
  if (v === null || v === undefined || v === "") return document.createTextNode("—");
  const text = String(v);
  switch (p.dataType) {
    case "STATUS": {
      // A defined STATUS names one of the definition's options; an item property carries optionType.
      const option = p.options?.find((o) => o.name === text);
      return option ? badge(option.label, option.type) : badge(text, p.optionType);
    }
    case "CURRENCY": {
      const n = toNumber(v);
      return document.createTextNode(Number.isFinite(n) ? money(n, p.currencyCode) : text);
    }
    case "NUMERIC": {
      const n = toNumber(v);
      return document.createTextNode(Number.isFinite(n) ? new Intl.NumberFormat().format(n) : text);
    }
    case "DATE": {
      // A date has no time of day: shown in UTC so that midnight UTC is not the previous day elsewhere.
      const d = toDate(v);
      if (Number.isNaN(d.getTime())) return document.createTextNode(text);
      return h("time", { datetime: d.toISOString().slice(0, 10) }, new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeZone: "UTC" }).format(d));
    }
    case "DATETIME": {
      const d = toDate(v);
      if (Number.isNaN(d.getTime())) return document.createTextNode(text);
      return h("time", { datetime: d.toISOString() }, new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" }).format(d));
    }
    case "EMAIL":
      return /^[^\s@<>"]+@[^\s@<>"]+$/.test(text) ? h("a", { href: `mailto:${text}` }, text) : document.createTextNode(text);
    case "LINK":
      return isHttpUrl(text) ? h("a", { href: text, target: "_blank", rel: "noopener noreferrer" }, p.linkLabel || text) : document.createTextNode(text);
    case "BOOLEAN":
      return document.createTextNode(v === true || text === "true" ? "Yes" : v === false || text === "false" ? "No" : text);
    default:
      return document.createTextNode(text);
  }
}
