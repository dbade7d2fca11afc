import { createDraft, createDraftSchema } from "@/lib/sandbox/drafts";
import { handleSandboxRequest, json, parseBody, readCaller, requireIdempotencyKey } from "@/lib/sandbox/http";

/** POST /api/sandbox/drafts `{ kind, content }` + Idempotency-Key → 200 `{ draftId }`; idempotent by key. */
export async function POST(request: Request) {
  return handleSandboxRequest(request, { system: "drafts", effect: true }, async ({ db }) => {
    const idempotencyKey = requireIdempotencyKey(request);
    const input = await parseBody(request, createDraftSchema);
    const { draftId, replayed } = await createDraft(db, { ...input, idempotencyKey, caller: readCaller(request) });
    return json({ draftId }, 200, replayed ? { "Idempotent-Replayed": "true" } : undefined);
  });
}
