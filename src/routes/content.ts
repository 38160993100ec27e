/** @module Routes of issue 6: the blog content API, public blog pages and SMTP API tokens. */
import { blogPageRoutes } from "./blog-pages";
import { blogRoutes } from "./blog";
import { blogPostRoutes } from "./blog-posts";
import { smtpTokenRoutes } from "./smtp-tokens";

export const contentRoutes = [...blogRoutes, ...blogPostRoutes, ...blogPageRoutes, ...smtpTokenRoutes];
