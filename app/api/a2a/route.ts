import { handleA2aRequest } from "@/lib/a2a/jsonrpc";
import { getDb } from "@/lib/db";
import { getRuntime } from "@/lib/runtime.server";

export const dynamic = "force-dynamic";

/** A2A 1.0 over JSON-RPC 2.0: SendMessage, GetTask, CancelTask (docs/a2a.md). The card is at /.well-known/agent-card.json. */
export const POST = (request: Request) => handleA2aRequest(request, { db: getDb(), runtime: getRuntime() });
