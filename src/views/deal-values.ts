/**
 * @module How deal values read in the web app: an amount with its currency, and a stage by
 * its label. A deal's currency is its `deal_currency_code` property (an ISO 4217 code, as the CRM names
 * it); a deal without one shows the plain number with two decimals, since the CRM records no currency then.
 */
import { PIPELINE_STAGES } from "../services/ecomm/model";

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

const STAGE_LABEL = new Map<string, string>(PIPELINE_STAGES.map((s) => [s.stageId, s.label]));

/** The ecommerce pipeline's label of a stage id (its six stages), or the id as stored for any other stage. */
export function stageLabel(stageId: string | undefined): string {
  return stageId ? (STAGE_LABEL.get(stageId) ?? stageId) : "";
}
