/**
 * @module OAuth scopes, the real service's legacy and granular names. Each route names the scopes it
 * needs; a grant satisfies a requirement by the scope itself or by the legacy scope that covered it.
 */
export const SCOPES = [
  "oauth",
  "crm.objects.contacts.read",
  "crm.objects.contacts.write",
  "crm.objects.companies.read",
  "crm.objects.companies.write",
  "crm.objects.deals.read",
  "crm.objects.deals.write",
  "crm.objects.leads.read",
  "crm.objects.leads.write",
  "crm.objects.owners.read",
  "crm.objects.custom.read",
  "crm.objects.custom.write",
  "crm.schemas.custom.read",
  "crm.schemas.custom.write",
  "settings.users.read",
  "settings.users.write",
  "settings.users.teams.read",
  "account-info.security.read",
  "crm.lists.read",
  "crm.lists.write",
  "contacts",
  "tickets",
  "e-commerce",
  "integration-sync",
  "timeline",
  "content",
  "transactional-email",
] as const;

export type Scope = (typeof SCOPES)[number];

/** Legacy `contacts` covered contacts, companies and deals, read and write, and the contact lists. */
const LEGACY: Partial<Record<Scope, Scope[]>> = {
  contacts: [
    "crm.objects.contacts.read",
    "crm.objects.contacts.write",
    "crm.objects.companies.read",
    "crm.objects.companies.write",
    "crm.objects.deals.read",
    "crm.objects.deals.write",
    "crm.lists.read",
    "crm.lists.write",
  ],
};

export function grants(granted: readonly string[], required: Scope): boolean {
  if (granted.includes(required)) return true;
  return granted.some((g) => LEGACY[g as Scope]?.includes(required) ?? false);
}

/** The required scopes that `granted` lacks. */
export const missingScopes = (granted: readonly string[], required: readonly Scope[]) =>
  required.filter((s) => !grants(granted, s));
