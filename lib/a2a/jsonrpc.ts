import { inWorkspace } from "@/lib/runtime/workspace";
import { z } from "zod";
import { BodyRejected, holdsNulCharacter, readJsonBody } from "@/lib/api/body";
import { authenticate } from "@/lib/api/route";
import type { Db } from "@/lib/db";
import type { Runtime } from "@/lib/runtime";
import { A2aError, errorInfo, toA2aError } from "./errors";
import { BLOCKING_WAIT_MS, cancelTask, getTask, sendMessage, type A2aContext } from "./methods";
import { A2A_PROTOCOL_VERSION } from "./protocol";

// A2A's JSON-RPC 2.0 binding (A2A 1.0 §9) at POST /api/a2a: authenticate the bearer token, check the
// protocol version, read the envelope, run one method, answer `{jsonrpc, id, result | error}`. Every
// refusal happens before a method runs, so a malformed request writes nothing.

const METHODS: Record<string, (ctx: A2aContext, params: unknown) => Promise<unknown>> = {
  SendMessage: sendMessage,
  GetTask: getTask,
  CancelTask: cancelTask,
};

/** Methods of the spec Tether does not serve, and the error the spec gives for each (§3.3.4). */
const UNSUPPORTED: Record<string, () => A2aError> = {
  SendStreamingMessage: () =>
    new A2aError(
      "unsupportedOperation",
      "Streaming is not supported (capabilities.streaming is false): use SendMessage and GetTask.",
    ),
  SubscribeToTask: () =>
    new A2aError("unsupportedOperation", "Streaming is not supported (capabilities.streaming is false): poll GetTask."),
  ListTasks: () => new A2aError("unsupportedOperation", "ListTasks is not supported here: GET /api/runs lists runs."),
  GetExtendedAgentCard: () =>
    new A2aError("unsupportedOperation", "There is no extended agent card (capabilities.extendedAgentCard is false)."),
  ...Object.fromEntries(
    [
      "CreateTaskPushNotificationConfig",
      "GetTaskPushNotificationConfig",
      "ListTaskPushNotificationConfigs",
      "DeleteTaskPushNotificationConfig",
    ].map((name) => [
      name,
      () =>
        new A2aError(
          "pushNotificationNotSupported",
          "Push notifications are not supported (capabilities.pushNotifications is false).",
        ),
    ]),
  ),
};

const envelopeSchema = z.object({
  jsonrpc: z.literal("2.0"),
  // A request without an id is a notification, which has no answer: every A2A method answers.
  id: z.union([z.string().max(200), z.number().int()]),
  method: z.string().min(1).max(100),
  params: z.unknown().optional(),
});

type RequestId = string | number | null;

/** The id of whatever was sent, when it has a usable one (so even an invalid request's error names it). */
function idOf(body: unknown): RequestId {
  const id = (body as { id?: unknown } | null)?.id;
  return typeof id === "string" || (typeof id === "number" && Number.isInteger(id)) ? id : null;
}

/** The A2A-Version the client speaks: the header, else the query parameter; empty means 0.3 (§3.6.2). */
function checkVersion(request: Request) {
  const asked =
    (request.headers.get("a2a-version") ?? new URL(request.url).searchParams.get("A2A-Version") ?? "").trim() || "0.3";
  if (asked !== A2A_PROTOCOL_VERSION) {
    throw new A2aError(
      "versionNotSupported",
      `A2A version ${asked} is not supported: send the header A2A-Version: ${A2A_PROTOCOL_VERSION}.`,
      [errorInfo("VERSION_NOT_SUPPORTED", { requested: asked, supported: A2A_PROTOCOL_VERSION })],
    );
  }
}

async function readBody(request: Request): Promise<unknown> {
  try {
    return await readJsonBody(request);
  } catch (error) {
    if (!(error instanceof BodyRejected)) throw error;
    if (error.reason === "not_json") throw new A2aError("parse");
    throw new A2aError(
      "invalidRequest",
      error.message,
      [errorInfo(error.reason.toUpperCase())],
      error.reason === "too_large" ? 413 : 200,
    );
  }
}

function parseEnvelope(body: unknown) {
  if (Array.isArray(body))
    throw new A2aError("invalidRequest", "Batch requests are not supported: send one request at a time.");
  const parsed = envelopeSchema.safeParse(body);
  if (!parsed.success) {
    const fieldViolations = parsed.error.issues.map((issue) => ({
      field: issue.path.map(String).join(".") || "request",
      description: issue.message,
    }));
    throw new A2aError("invalidRequest", undefined, [
      { "@type": "type.googleapis.com/google.rpc.BadRequest", fieldViolations },
    ]);
  }
  if (holdsNulCharacter(parsed.data.params))
    throw new A2aError("invalidParams", "The parameters hold a NUL character (\\u0000), which Tether does not store.");
  return parsed.data;
}

export async function handleA2aRequest(
  request: Request,
  deps: { db: Db; runtime: Runtime; blockingWaitMs?: number },
): Promise<Response> {
  let id: RequestId = null;
  try {
    const principal = await authenticate(request, null);
    checkVersion(request);
    const body = await readBody(request);
    id = idOf(body);
    const envelope = parseEnvelope(body);
    const method = METHODS[envelope.method];
    if (!method)
      throw UNSUPPORTED[envelope.method]?.() ?? new A2aError("methodNotFound", `Method not found: ${envelope.method}`);
    const result = await inWorkspace(principal.workspaceId, () =>
      method(
        { principal, runtime: deps.runtime, db: deps.db, blockingWaitMs: deps.blockingWaitMs ?? BLOCKING_WAIT_MS },
        envelope.params,
      ),
    );
    return Response.json({ jsonrpc: "2.0", id, result });
  } catch (thrown) {
    const error = toA2aError(thrown);
    return Response.json(
      { jsonrpc: "2.0", id, error: error.toJSON() },
      { status: error.httpStatus, headers: error.headers },
    );
  }
}
