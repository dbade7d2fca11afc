import { defaultDatabaseUrl, getDb, providerOf } from "@/lib/db";
import { defineRoute } from "@/lib/api/route";

export const dynamic = "force-dynamic";

export const GET = defineRoute({ scope: null }, async () => {
  await getDb().$queryRawUnsafe("SELECT 1");
  return { ok: true, database: providerOf(defaultDatabaseUrl()) };
});
