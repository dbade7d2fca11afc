import { z } from "zod";
import { defineRoute } from "@/lib/api/route";
import { putQueueDeciders } from "@/lib/commands/put-queue-deciders";

export const dynamic = "force-dynamic";

/** {roles: [reviewer|operator|admin], people: [email]} → who may decide this queue's packets; both empty reopens it to every decider. */
export const PUT = defineRoute(
  { scope: "admin", params: z.object({ name: z.string() }), body: z.unknown() },
  async ({ params, body, principal, db }) => ({
    queue: await putQueueDeciders(db, { queue: params.name, input: body, by: principal.principal }),
  }),
);
