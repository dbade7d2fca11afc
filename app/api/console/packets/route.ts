import { defineConsoleRoute } from "@/lib/api/console-route";
import { findInboxItems } from "@/lib/queries/packets";

export const dynamic = "force-dynamic";

// The inbox's live queue: every pending packet as an inbox item; the client sorts and filters
// (lib/inbox/queue.ts), so a change of filter needs no round trip.
export const GET = defineConsoleRoute({ scope: "packets:read" }, async () => ({ items: await findInboxItems() }));
