/** @module How an engagement looks in the legacy v1 API (docs/reference/engagements.md "Shape"). */
import type { EngagementOut } from "../../schemas/engagements";
import type { Engagement } from "../../services/engagements/engagements";
import { activeOf, attachmentsOf, metadataOf, ownerOf, timestampOf, v1TypeOf } from "../../services/engagements/mapping";

export function presentEngagement({ row, associations }: Engagement): EngagementOut {
  const ownerId = ownerOf(row);
  return {
    engagement: {
      id: row.id,
      portalId: row.portalId,
      active: activeOf(row),
      createdAt: row.createdAt,
      lastUpdated: row.updatedAt,
      type: v1TypeOf(row),
      timestamp: timestampOf(row),
      ...(ownerId === undefined ? {} : { ownerId }),
    },
    associations: {
      contactIds: associations.contacts ?? [],
      companyIds: associations.companies ?? [],
      dealIds: associations.deals ?? [],
      // Owners are not associations here: the owner is engagement.ownerId.
      ownerIds: [],
      ticketIds: associations.tickets ?? [],
    },
    attachments: attachmentsOf(row),
    metadata: metadataOf(row) as EngagementOut["metadata"],
  };
}

/** A page: `{results, hasMore, offset}`, plus what the route adds (`total`). */
export const presentPage = (page: { results: Engagement[]; hasMore: boolean; offset: number }, extra: Record<string, unknown> = {}) => ({
  results: page.results.map(presentEngagement),
  hasMore: page.hasMore,
  offset: page.offset,
  ...extra,
});
