/** Helpers of the v1 contacts tests. */
import { call, type Tenant } from "../helpers/api";

export const V1 = "/contacts/v1/contact";

/** The v1 body `{properties: [{property, value}]}` from a plain object. */
export const v1Props = (props: Record<string, string>) => ({ properties: Object.entries(props).map(([property, value]) => ({ property, value })) });

/** Creates a contact through v1 and returns its vid. */
export async function v1Create(t: Tenant, props: Record<string, string>): Promise<number> {
  const res = await call("POST", V1, { token: t.pat, body: v1Props(props) });
  if (res.status !== 200) throw new Error(`create failed: ${res.status} ${res.text}`);
  return res.json.vid as number;
}

export const profileOf = async (t: Tenant, vid: number, query = "") => call("GET", `${V1}/vid/${vid}/profile${query}`, { token: t.pat });

/** JSON type of a value, to compare our shapes with the recorded ones key by key. */
export const typeOf = (v: unknown) => (v === null ? "null" : Array.isArray(v) ? "array" : typeof v);
