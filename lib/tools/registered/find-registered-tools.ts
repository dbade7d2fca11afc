import type { Db } from "@/lib/db";
import { presentRegisteredTool, type RegisteredToolView } from "./present";

/** Every registered tool, newest first; disabled ones only when asked. */
export async function findRegisteredTools(
  db: Db,
  opts: { includeDisabled?: boolean } = {},
): Promise<RegisteredToolView[]> {
  const rows = await db.toolRegistration.findMany({
    where: opts.includeDisabled ? {} : { disabledAt: null },
    orderBy: [{ createdAt: "desc" }, { name: "asc" }],
  });
  return rows.map(presentRegisteredTool);
}
