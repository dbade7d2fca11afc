import { defineRoute } from "@/lib/api/route";
import { listQueueDeciders } from "@/lib/queries/queue-deciders";

export const dynamic = "force-dynamic";

/** The queues that name their deciders: [{name, roles, people, updatedBy, updatedAt}]. Other queues are open to every decider. */
export const GET = defineRoute({ scope: "admin" }, async ({ db }) => ({ queues: await listQueueDeciders(db) }));
