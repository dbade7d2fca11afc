import { SandboxError } from "@/lib/sandbox/errors";
import { errorResponse } from "@/lib/sandbox/http";

// Anything under /api/sandbox that no route serves gets a JSON 404 (not the console's HTML page).
// startSandboxServer answers these itself.

async function notFound(request: Request) {
  return errorResponse(new SandboxError("not_found", `No sandbox route for ${request.method} ${new URL(request.url).pathname}.`));
}

export { notFound as GET, notFound as POST, notFound as PUT, notFound as PATCH, notFound as DELETE };
