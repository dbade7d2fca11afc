import { noSandboxRoute } from "@/lib/sandbox/access";
import { handleSandboxRequest } from "@/lib/sandbox/http";

// Anything under /api/sandbox that no route serves gets a JSON 404 (not the console's HTML page) — after
// the same credential check as every sandbox route. startSandboxServer answers these itself.

async function notFound(request: Request) {
  return handleSandboxRequest(request, {}, async () => {
    throw noSandboxRoute(request);
  });
}

export { notFound as GET, notFound as POST, notFound as PUT, notFound as PATCH, notFound as DELETE };
