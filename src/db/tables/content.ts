/**
 * @module Content tables: blogs, blog authors, topics and blog posts, and SMTP API tokens. Every row
 * carries its portalId; every lookup is scoped by it.
 * Times are epoch ms; `deleted_at` is 0 while a row is live (the API's blog post field is zero until the
 * post is deleted), so it can sit in indexes.
 */
import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

export const POST_STATES = ["DRAFT", "SCHEDULED", "PUBLISHED"] as const;
export type PostState = (typeof POST_STATES)[number];

export interface Keyword {
  keyword: string;
  keyword_guid: string;
}

/** A blog (content group). Each account gets one default blog, created lazily (docs/reference/blog.md). */
export const blogs = sqliteTable(
  "blogs",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    portalId: integer("portal_id").notNull(),
    name: text("name").notNull(),
    /** Prefix of the default slug of this blog's posts, e.g. `blog` → `blog/my-post`. */
    slug: text("slug").notNull(),
    description: text("description").notNull().default(""),
    htmlTitle: text("html_title").notNull().default(""),
    isDefault: integer("is_default", { mode: "boolean" }).notNull().default(false),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
    deletedAt: integer("deleted_at").notNull().default(0),
  },
  (t) => [
    index("blogs_portal").on(t.portalId, t.id),
    // At most one default blog per account: concurrent lazy creation cannot make two.
    uniqueIndex("blogs_one_default").on(t.portalId).where(sql`${t.isDefault} = 1`),
  ],
);

export const blogAuthors = sqliteTable(
  "blog_authors",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    portalId: integer("portal_id").notNull(),
    fullName: text("full_name").notNull(),
    email: text("email").notNull().default(""),
    bio: text("bio").notNull().default(""),
    website: text("website").notNull().default(""),
    twitter: text("twitter").notNull().default(""),
    facebook: text("facebook").notNull().default(""),
    linkedin: text("linkedin").notNull().default(""),
    avatar: text("avatar").notNull().default(""),
    slug: text("slug").notNull(),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
    deletedAt: integer("deleted_at").notNull().default(0),
  },
  (t) => [index("blog_authors_portal").on(t.portalId, t.id)],
);

export const blogTopics = sqliteTable(
  "blog_topics",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    portalId: integer("portal_id").notNull(),
    name: text("name").notNull(),
    slug: text("slug").notNull(),
    description: text("description").notNull().default(""),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
    deletedAt: integer("deleted_at").notNull().default(0),
  },
  (t) => [
    index("blog_topics_portal").on(t.portalId, t.id),
    uniqueIndex("blog_topics_slug").on(t.portalId, t.slug).where(sql`${t.deletedAt} = 0`),
  ],
);

export const blogPosts = sqliteTable(
  "blog_posts",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    portalId: integer("portal_id").notNull(),
    contentGroupId: integer("content_group_id").notNull(),
    blogAuthorId: integer("blog_author_id"),
    /** The user behind the token that created the post; 0 when the token carries no user. */
    authorUserId: integer("author_user_id").notNull().default(0),
    name: text("name").notNull(),
    /** URL path under /_blog/<portalId>/; unique among the account's live posts. */
    slug: text("slug").notNull(),
    htmlTitle: text("html_title").notNull(),
    postBody: text("post_body").notNull().default(""),
    postSummary: text("post_summary").notNull().default(""),
    metaDescription: text("meta_description").notNull().default(""),
    headHtml: text("head_html").notNull().default(""),
    footerHtml: text("footer_html").notNull().default(""),
    featuredImage: text("featured_image").notNull().default(""),
    useFeaturedImage: integer("use_featured_image", { mode: "boolean" }).notNull().default(false),
    campaign: text("campaign").notNull().default(""),
    campaignName: text("campaign_name"),
    keywords: text("keywords", { mode: "json" }).$type<Keyword[]>().notNull().default(sql`'[]'`),
    topicIds: text("topic_ids", { mode: "json" }).$type<number[]>().notNull().default(sql`'[]'`),
    widgets: text("widgets", { mode: "json" }).$type<Record<string, unknown>>().notNull().default(sql`'{}'`),
    widgetContainers: text("widget_containers", { mode: "json" }).$type<Record<string, unknown>>().notNull().default(sql`'{}'`),
    publishDate: integer("publish_date").notNull(),
    publishImmediately: integer("publish_immediately", { mode: "boolean" }).notNull().default(false),
    state: text("state", { enum: POST_STATES }).notNull().default("DRAFT"),
    archived: integer("archived", { mode: "boolean" }).notNull().default(false),
    previewKey: text("preview_key").notNull(),
    publishedAt: integer("published_at").notNull().default(0),
    unpublishedAt: integer("unpublished_at"),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
    deletedAt: integer("deleted_at").notNull().default(0),
    /**
     * The v3 face's draft (cms/v3 `…/draft`): the changes waiting for push-live, as v2 post fields
     * (`PostInput`). Null when there is none; the live columns above are what v2 and the public page show.
     */
    draft: text("draft", { mode: "json" }).$type<Record<string, unknown>>(),
  },
  (t) => [
    // Public page lookup (portal, slug) and slug uniqueness; a deleted post frees its slug.
    uniqueIndex("blog_posts_slug").on(t.portalId, t.slug).where(sql`${t.deletedAt} = 0`),
    index("blog_posts_list").on(t.portalId, t.deletedAt, t.createdAt),
    // The publishing cron reads only due scheduled posts.
    index("blog_posts_due").on(t.publishDate).where(sql`${t.state} = 'SCHEDULED' and ${t.deletedAt} = 0`),
  ],
);

/**
 * SMTP API tokens. The password is returned only at creation and reset, and kept only as a PBKDF2 record;
 * a deleted token keeps its row (and so its userName) with the hash cleared, so it can never authenticate
 * again.
 */
export const smtpTokens = sqliteTable(
  "smtp_tokens",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    portalId: integer("portal_id").notNull(),
    userName: text("user_name").notNull().unique(),
    /** `pbkdf2$<iterations>$<salt>$<hash>`; null once the token is deleted. */
    passwordHash: text("password_hash"),
    emailCampaignId: integer("email_campaign_id").notNull(),
    appId: integer("app_id").notNull(),
    createdBy: text("created_by").notNull(),
    campaignName: text("campaign_name").notNull(),
    createContact: integer("create_contact", { mode: "boolean" }).notNull().default(false),
    createdAt: integer("created_at").notNull(),
    deleted: integer("deleted", { mode: "boolean" }).notNull().default(false),
    deletedAt: integer("deleted_at"),
  },
  (t) => [index("smtp_tokens_portal").on(t.portalId, t.deleted, t.id)],
);

/**
 * Mail an account sent: over SMTP with one of its tokens (`token_user_name` names it) or through
 * `POST /marketing/v3/transactional/single-email/send` (null). Addresses are JSON arrays of strings. The
 * HTTP send names a stored email (`email_id`) instead of carrying a subject and body; what it gives beside
 * (contactProperties, customProperties, replyTo, sendId) is kept in `extra`. Bodies are capped by the
 * schemas (src/schemas/smtp.ts), so a row stays well under D1's row limit.
 */
export const sentEmails = sqliteTable(
  "sent_emails",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    portalId: integer("portal_id").notNull(),
    tokenUserName: text("token_user_name"),
    fromAddress: text("from_address"),
    toAddresses: text("to_addresses", { mode: "json" }).$type<string[]>().notNull(),
    ccAddresses: text("cc_addresses", { mode: "json" }).$type<string[]>().notNull(),
    bccAddresses: text("bcc_addresses", { mode: "json" }).$type<string[]>().notNull(),
    subject: text("subject"),
    textBody: text("text_body"),
    htmlBody: text("html_body"),
    emailId: integer("email_id"),
    extra: text("extra", { mode: "json" }).$type<Record<string, unknown>>(),
    /** PENDING, PROCESSING, CANCELED or COMPLETE: the client's EmailSendStatusView statuses. */
    status: text("status").notNull(),
    /** The client's EmailSendStatusView sendResult: SENT, or UNDELIVERABLE when the relay refused it. */
    sendResult: text("send_result"),
    /** Why the relay refused it, when it did (for operators; never shown to the API caller). */
    statusDetail: text("status_detail"),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [index("sent_emails_portal").on(t.portalId, t.id)],
);
