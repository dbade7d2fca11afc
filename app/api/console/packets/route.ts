import { z } from "zod";
import { defineConsoleRoute } from "@/lib/api/console-route";
import { parseInboxFilters } from "@/lib/inbox/queue";
import { findConsoleInboxPage } from "@/lib/queries/packets";

export const dynamic = "force-dynamic";

// The inbox's pages: sorted, filtered and paged on the server (lib/queries/inbox-page.ts). The filters
// are the inbox URL's own search params; `cursor` is the previous page's nextCursor.
export const GET = defineConsoleRoute(
  { scope: "packets:read", query: z.object({ cursor: z.string().max(1000).optional() }).passthrough() },
  async ({ user, query }) =>
    findConsoleInboxPage({
      filters: parseInboxFilters(query as Record<string, string>),
      me: user.email,
      cursor: query.cursor,
    }),
);
