import { getDb } from "@/lib/db";
import { getRuntime } from "@/lib/runtime.server";
import type { handleA2aRequest } from "./jsonrpc";

/** The running console's database and runtime, for the A2A endpoint (app/api/a2a). */
export function a2aDeps(): Parameters<typeof handleA2aRequest>[1] {
  return { db: getDb(), runtime: getRuntime() };
}
