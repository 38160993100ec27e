/**
 * @module HTML of the account's sent mail: what its SMTP API tokens and the transactional single send sent
 * (services/smtp/mail.ts). Every value is escaped; an HTML body is shown as its source, never rendered, so
 * mail content cannot run in the app's origin.
 */
import { escapeHtml as e } from "../lib/html";
import type { SentEmailRow } from "../services/smtp/mail";
import { timeTag } from "./time";

export interface MailPageView {
  rows: SentEmailRow[];
  /** The cursor of this page (`after`), 0 on the first. */
  after: number;
  next: string | null;
}

const cell = (label: string, content: string) => `<td role="cell" data-label="${label}"><span>${content}</span></td>`;
const list = (addresses: string[]) => addresses.map(e).join(", ");

function recipients(r: SentEmailRow): string {
  return [
    list(r.toAddresses),
    r.ccAddresses.length ? `<span class="muted">cc</span> ${list(r.ccAddresses)}` : "",
    r.bccAddresses.length ? `<span class="muted">bcc</span> ${list(r.bccAddresses)}` : "",
  ]
    .filter(Boolean)
    .join("<br>");
}

/** The subject of SMTP mail; the HTTP send names a stored email instead. */
function subject(r: SentEmailRow): string {
  const title = r.subject !== null ? e(r.subject || "(no subject)") : r.emailId !== null ? `Email ${e(String(r.emailId))}` : "(no subject)";
  const parts: string[] = [];
  if (r.textBody) parts.push(`<h3>Text</h3><pre class="mail-body">${e(r.textBody)}</pre>`);
  if (r.htmlBody) parts.push(`<h3>HTML (source)</h3><pre class="mail-body">${e(r.htmlBody)}</pre>`);
  if (r.extra && Object.keys(r.extra).length) parts.push(`<h3>Send details</h3><pre class="mail-body">${e(JSON.stringify(r.extra, null, 2))}</pre>`);
  return parts.length ? `<details><summary>${title}</summary>${parts.join("")}</details>` : title;
}

const via = (r: SentEmailRow) => (r.tokenUserName ? `SMTP <code>${e(r.tokenUserName)}</code>` : "API");
const status = (r: SentEmailRow) => e(r.sendResult ? `${r.status} · ${r.sendResult}` : r.status);

export function mailBody(v: MailPageView): string {
  const rows = v.rows
    .map(
      (r) =>
        `<tr role="row">${cell("Sent", timeTag(r.createdAt))}${cell("From", e(r.fromAddress ?? ""))}${cell("To", recipients(r))}${cell("Subject", subject(r))}${cell("Via", via(r))}${cell("Status", status(r))}</tr>`,
    )
    .join("");
  const table = v.rows.length
    ? `<div class="table-wrap"><table class="records stack mail" role="table"><caption class="visually-hidden">Sent mail</caption>
<thead><tr role="row">${["Sent", "From", "To", "Subject", "Via", "Status"].map((l) => `<th role="columnheader" scope="col">${l}</th>`).join("")}</tr></thead><tbody>${rows}</tbody></table></div>`
    : `<p class="empty">No mail sent yet. Mail sent with one of the account's SMTP API tokens, or through the transactional send API, shows here.</p>`;
  const pager = [v.after ? `<a href="/app/mail">Newest</a>` : "", v.next ? `<a href="/app/mail?after=${e(v.next)}" rel="next">Older</a>` : ""].filter(Boolean).join(" ");
  return `<h1>Sent mail</h1>${table}${pager ? `<nav class="pager" aria-label="Pages">${pager}</nav>` : ""}`;
}
