import { docIdSchema, putDoc, putDocSchema } from "@/lib/sandbox/docs";
import { handleSandboxRequest, json, parseBody, parseWith, pathParams } from "@/lib/sandbox/http";

type Context = { params: Promise<{ id: string }> };

/**
 * PUT /api/sandbox/docs/:id `{ title?, body }` → 200 the changed doc, or 201 a new one (title required).
 * A control route: tests and evals change the world with it; no fault knobs, no ledger row.
 */
export async function PUT(request: Request, { params }: Context) {
  return handleSandboxRequest(request, {}, async ({ db }) => {
    const id = parseWith(docIdSchema, (await pathParams(params)).id, "doc id");
    const input = await parseBody(request, putDocSchema);
    const { doc, created } = await putDoc(db, id, input);
    return json(doc, created ? 201 : 200);
  });
}
