import { defineConsoleRoute } from "@/lib/api/console-route";
import { countPendingPackets } from "@/lib/queries/packets";

export const dynamic = "force-dynamic";

// The navigation's inbox badge.
export const GET = defineConsoleRoute({ scope: "packets:read" }, async ({ user }) => countPendingPackets(user.email));
