/**
 * The facts the main suite keeps in test/fixtures/legacy-shapes.ts agree with the recorded traffic they were
 * learned from: if a fixture drifted from the real service, this fails in CI (which has
 * shared/reference/traffic), while `npm test` itself needs nothing beside the repository.
 */
import { describe, expect, it } from "vitest";
import * as F from "../fixtures/legacy-shapes";
import { recording, recordingCount } from "./recordings";

const jsonType = (v: unknown) => (v === null ? "null" : Array.isArray(v) ? "array" : typeof v);
const shapeOf = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).map(([k, v]) => [k, jsonType(v)]));
const body = (name: string) => recording(name).responseBody;

describe("test/fixtures/legacy-shapes.ts agrees with the recordings", () => {
  it("finds the recordings beside the repository", () => {
    expect(recordingCount()).toBeGreaterThan(100);
  });

  it.each([
    ["BLOG_POST_V2", F.BLOG_POST_V2, () => body("hubspot-ruby/blog_posts_v2_get__blog_posts__0_4d332477.json")],
    ["BLOG_AUTHOR_V2", F.BLOG_AUTHOR_V2, () => body("hubspot-ruby/blog_posts_v2_get__blog_posts__0_4d332477.json").blog_author],
    ["LIST_V2", F.LIST_V2, () => body("hubspot-ruby/blog_posts_v2_list__filter_blog_posts__0_0fffb895.json")],
    ["SMTP_TOKEN_CREATED", F.SMTP_TOKEN_CREATED, () => body("hubspot-docs-examples/smtpapi_v1__create_token.json")],
    ["SMTP_TOKEN_RESET", F.SMTP_TOKEN_RESET, () => body("hubspot-docs-examples/smtpapi_v1__password_reset.json")],
    ["SMTP_TOKEN_LISTED", F.SMTP_TOKEN_LISTED, () => body("hubspot-docs-examples/smtpapi_v1__list_tokens__schema_example.json")[0]],
    ["CONTACTS_V1_PAGE", F.CONTACTS_V1_PAGE, () => body("hubspot-ruby/contacts_v1_all__find_all_contacts__4_70b6313f.json")],
    ["CONTACT_V1", F.CONTACT_V1, () => body("hubspot-ruby/contacts_v1_all__find_all_contacts__4_70b6313f.json").contacts[0]],
    ["IDENTITY_PROFILE_V1", F.IDENTITY_PROFILE_V1, () => body("hubspot-ruby/contacts_v1_all__find_all_contacts__4_70b6313f.json").contacts[0]["identity-profiles"][0]],
  ])("%s", (_name, fixture, recorded) => {
    expect(fixture).toEqual(shapeOf(recorded()));
  });

  it("SYNC_STATUS_KEYS and SYNC_ERROR_KEYS", () => {
    expect(Object.keys(body("hubspot-docs-examples/ecomm_v2__sync_status__changelog_example.json"))).toEqual([...F.SYNC_STATUS_KEYS]);
    expect(Object.keys(body("synthetic-test-mocks/ecomm_v2__05.json").results[0]).sort()).toEqual([...F.SYNC_ERROR_KEYS].sort());
  });

  it("BLOG_POSTS_CLIENT_QUERY", () => {
    const { content_group_id, ...rest } = recording("hubspot-api-ruby-captaincontrat/blog_posts_v2_list__all_blog_posts__1_29435896.json").query;
    expect(content_group_id).toMatch(/^\d+$/);
    expect(rest).toEqual(F.BLOG_POSTS_CLIENT_QUERY);
  });
});
