import { findDocs, findDocsSchema } from "@/lib/sandbox/docs";
import { handleSandboxRequest, json, parseQuery } from "@/lib/sandbox/http";

/** GET /api/sandbox/docs?query=… → `{ docs }` whose title or body contains the query (case-insensitive). */
export async function GET(request: Request) {
  return handleSandboxRequest(request, { system: "docs" }, async ({ db }) => {
    const { query } = parseQuery(request, findDocsSchema);
    return json({ docs: await findDocs(db, query) });
  });
}
