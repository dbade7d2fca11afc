import type { Db } from "@/lib/db";
import { createBuiltInTools } from "@/lib/tools";
import { findRegisteredTools } from "./find-registered-tools";
import { presentBuiltInTool, type RegisteredToolView, type ToolSummary } from "./present";

/** Every tool an agent can be given: the built-in ones, then the registered ones (with their settings). */
export async function listTools(
  db: Db,
  opts: { includeDisabled?: boolean } = {},
): Promise<Array<ToolSummary | RegisteredToolView>> {
  const builtIn = createBuiltInTools({ sandboxUrl: "http://unused" }).map(presentBuiltInTool);
  return [...builtIn, ...(await findRegisteredTools(db, opts))];
}
