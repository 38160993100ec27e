/**
 * @module Wire shapes of the blog content API v2 (docs/reference/blog.md). A post carries every key of the
 * real service's recorded 2014 body (hubspot-ruby's fixture `blog_posts.yml`) with the same JSON types, plus
 * the later keys the API documents (published_at, tag_ids, topic_names, parent_blog, ...). Legacy features this
 * service does not have (stylesheets, personas, page expiry, A/B tests) get their empty or null value, as the
 * recording shows.
 */
import type { AuthorRow, BlogRow, TopicRow } from "../../services/blog/blogs";
import type { PostRelations, PostRow } from "../../services/blog/posts";

/** A post's `url`: its public page, served by this Worker (routes/blog/pages.ts). */
export const postUrl = (origin: string, portalId: number, slug: string) => `${origin}/_blog/${portalId}/${slug}`;

export function presentTopic(t: TopicRow) {
  return {
    created: t.createdAt,
    deleted_at: t.deletedAt,
    description: t.description,
    id: t.id,
    name: t.name,
    portal_id: t.portalId,
    slug: t.slug,
    updated: t.updatedAt,
  };
}

export function presentAuthor(a: AuthorRow) {
  return {
    avatar: a.avatar,
    bio: a.bio,
    body: {},
    created: a.createdAt,
    deleted_at: a.deletedAt,
    display_name: a.fullName,
    email: a.email,
    facebook: a.facebook,
    full_name: a.fullName,
    google_plus: "",
    gravatar_url: "",
    has_social_profiles: Boolean(a.twitter || a.facebook || a.linkedin),
    id: a.id,
    linkedin: a.linkedin,
    portal_id: a.portalId,
    slug: a.slug,
    twitter: a.twitter,
    updated: a.updatedAt,
    user_id: null,
    username: null,
    website: a.website,
  };
}

export function presentBlog(b: BlogRow, origin: string) {
  const root = `${origin}/_blog/${b.portalId}/${b.slug}`;
  return {
    absolute_url: root,
    created: b.createdAt,
    deleted_at: b.deletedAt,
    description: b.description,
    html_title: b.htmlTitle,
    id: b.id,
    name: b.name,
    portal_id: b.portalId,
    public_title: b.htmlTitle || b.name,
    root_url: root,
    slug: b.slug,
    updated: b.updatedAt,
  };
}

export function presentPost(p: PostRow, rel: PostRelations, origin: string) {
  const url = postUrl(origin, p.portalId, p.slug);
  const published = p.state === "PUBLISHED";
  const author = p.blogAuthorId === null ? undefined : rel.authors.get(p.blogAuthorId);
  const blog = rel.blogs.get(p.contentGroupId);
  return {
    absolute_url: url,
    analytics_page_id: String(p.id),
    archived: p.archived,
    attached_stylesheets: [],
    author_user_id: p.authorUserId,
    blog_author: author ? presentAuthor(author) : null,
    blog_author_id: p.blogAuthorId,
    blueprint_type_id: 0,
    campaign: p.campaign,
    campaign_name: p.campaignName,
    category_id: 3,
    cloned_from: null,
    comment_count: 0,
    content_group_id: p.contentGroupId,
    created: p.createdAt,
    css: {},
    css_text: "",
    current_state: p.state,
    currently_published: published,
    deleted_at: p.deletedAt,
    domain: "",
    enable_domain_stylesheets: true,
    enable_layout_stylesheets: true,
    featured_image: p.featuredImage,
    featured_image_alt_text: "",
    folder_id: null,
    footer_html: p.footerHtml,
    freeze_date: p.publishDate,
    head_html: p.headHtml,
    html_title: p.htmlTitle,
    id: p.id,
    include_default_custom_css: null,
    // A draft until the publish action; a scheduled post is no longer a draft.
    is_draft: p.state === "DRAFT",
    is_instant_email_enabled: false,
    is_published: published,
    is_social_publishing_enabled: false,
    keywords: p.keywords,
    legacy_blog_tabid: null,
    meta_description: p.metaDescription,
    meta_keywords: null,
    name: p.name,
    page_expiry_date: null,
    page_expiry_enabled: null,
    page_expiry_redirect_id: null,
    page_expiry_redirect_url: null,
    page_redirected: null,
    parent_blog: blog ? presentBlog(blog, origin) : null,
    performable_url: null,
    personas: [],
    portal_id: p.portalId,
    post_body: p.postBody,
    post_summary: p.postSummary,
    preview_image_src: null,
    preview_key: p.previewKey,
    processing_status: p.state.toLowerCase(),
    publish_date: p.publishDate,
    publish_immediately: p.publishImmediately,
    published_at: p.publishedAt,
    published_url: published ? url : "",
    rss_body: p.postBody,
    rss_email_by_text: "By",
    rss_email_click_through_text: "Read more &raquo;",
    rss_email_comment_text: "Comment &raquo;",
    rss_summary: p.postSummary,
    scheduled_update_date: null,
    slug: p.slug,
    state: p.state,
    style_override_id: null,
    subcategory: "normal_blog_post",
    tag_ids: p.topicIds,
    topic_ids: p.topicIds,
    topic_names: p.topicIds.flatMap((id) => {
      const t = rel.topics.get(id);
      return t ? [t.name] : [];
    }),
    unpublished_at: p.unpublishedAt,
    updated: p.updatedAt,
    url,
    use_featured_image: p.useFeaturedImage,
    views: 0,
    widget_containers: p.widgetContainers,
    widgets: p.widgets,
  };
}

/** The v2 list envelope, as the real service sends it: snake_case, with both `total` and `total_count`. */
export const envelopeOf = <T>(objects: T[], limit: number, offset: number, total: number) => ({
  limit,
  objects,
  offset,
  total,
  total_count: total,
});
