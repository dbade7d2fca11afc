import { a2aDeps } from "@/lib/a2a/console-deps";
import { handleA2aRequest } from "@/lib/a2a/jsonrpc";

export const dynamic = "force-dynamic";

/** A2A 1.0 over JSON-RPC 2.0: SendMessage, GetTask, CancelTask (docs/a2a.md). The card is at /.well-known/agent-card.json. */
export const POST = (request: Request) => handleA2aRequest(request, a2aDeps());
