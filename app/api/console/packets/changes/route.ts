import { z } from "zod";
import { defineConsoleRoute } from "@/lib/api/console-route";
import { findPacketChanges } from "@/lib/queries/packet-changes";

export const dynamic = "force-dynamic";

// The inbox's change feed: open inboxes and the navigation's badge poll it and re-read only on news.
export const GET = defineConsoleRoute(
  { scope: "packets:read", query: z.object({ since: z.string().max(20).optional() }) },
  async ({ query, db }) => findPacketChanges(db, query.since),
);
