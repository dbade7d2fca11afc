import { defineRoute } from "@/lib/api/route";
import { checkDatabase } from "@/lib/lifecycle/probes";

export const dynamic = "force-dynamic";

export const GET = defineRoute({ scope: null }, async () => ({ ok: true, database: await checkDatabase() }));
