/**
 * @module How a deal's amount reads in the web app: with its currency. A deal's currency is its
 * `deal_currency_code` property (an ISO 4217 code, as the CRM names it); a deal without one shows the plain
 * number with two decimals, since the CRM records no currency then. (A stage reads by its label from the
 * account's pipelines: src/services/pipelines/read.ts stageNames.)
 */
const CODE = /^[A-Z]{3}$/;

/** `128.9` with `EUR` → `€128.90`; without a currency → `128.90`; a value that is not a number stays as written. */
export function formatAmount(amount: string | undefined, currency: string | undefined): string {
  if (amount === undefined || amount === "") return "";
  const n = Number(amount);
  if (!Number.isFinite(n)) return amount;
  const code = currency?.trim().toUpperCase();
  if (code && CODE.test(code)) {
    try {
      return new Intl.NumberFormat("en-US", { style: "currency", currency: code }).format(n);
    } catch {
      // An unknown code: the number and the code as written.
      return `${n.toLocaleString("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 })} ${code}`;
    }
  }
  return n.toLocaleString("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 });
}
