import { defineRoute, tokenActor } from "@/lib/api/route";
import { idParams } from "@/lib/api/schemas";
import { removeChannel } from "@/lib/commands/remove-channel";

export const dynamic = "force-dynamic";

/** Removes a channel: nothing more is sent through it (404 when there is none, or it is already removed); audited with it. */
export const DELETE = defineRoute({ scope: "admin", params: idParams }, async ({ principal, params, db }) => {
  await removeChannel({ db }, { channelId: params.id, ...tokenActor(principal) });
  return { removed: params.id };
});
