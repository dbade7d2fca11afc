import { z } from "zod";
import { defineRoute } from "@/lib/api/route";
import { removeChannel } from "@/lib/commands/remove-channel";

export const dynamic = "force-dynamic";

/** Removes a channel: nothing more is sent through it (404 when there is none, or it is already removed); audited with it. */
export const DELETE = defineRoute(
  { scope: "admin", params: z.object({ id: z.string().min(1).max(200) }) },
  async ({ principal, params, db }) => {
    await removeChannel({ db }, { channelId: params.id, by: principal.principal, via: `token:${principal.name}` });
    return { removed: params.id };
  },
);
