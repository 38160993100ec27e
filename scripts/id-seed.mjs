/**
 * @module Each database's id counters (id_sequences): a copy of ID_TABLES and seedStatements in
 * src/db/id-ranges.ts, for the scripts that run on Node (npm run migrate, the bench's cluster). Change both
 * together. The counters start at the largest id of the database's own range it holds, or at its base.
 */
export const ID_TABLES = { crm_objects: "id", blogs: "id", blog_authors: "id", blog_topics: "id", blog_posts: "id", smtp_tokens: "id", ecomm_links: "id", ecomm_imports: "id", timeline_events: "row_id", webhook_outbox: "id", sent_emails: "id", pipelines: "id", pipeline_stages: "id", pipeline_audits: "id", crm_schemas: "id", lists: "id", webhook_deliveries: "id" };
export const ID_RANGE = 100_000_000_000;
/** The statements that start a database's counters, one per table. */
export const seedStatements = (base) => {
  const top = base + ID_RANGE;
  return Object.entries(ID_TABLES).map(
    ([t, c]) =>
      `insert into id_sequences (name, base, seq) select '${t}', ${base}, max(${base}, ` +
      `coalesce((select max(${c}) from ${t} where ${c} > ${base} and ${c} < ${top}), ${base}), ` +
      `coalesce((select seq from sqlite_sequence where name = '${t}' and seq > ${base} and seq < ${top}), ${base})) ` +
      `where not exists (select 1 from id_sequences where name = '${t}');`,
  );
};
export const seedSql = (base) => seedStatements(base).join(" ");

