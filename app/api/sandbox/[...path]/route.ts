import { serveSandboxRequest } from "@/lib/sandbox/routes";

// Every path under /api/sandbox, served from the sandbox's route table (lib/sandbox/routes.ts) — the same table
// startSandboxServer serves, so an unknown path is a JSON 404 and a wrong method a JSON 405, after the same
// credential check as every sandbox route.

async function serve(request: Request) {
  return serveSandboxRequest(request);
}

export { serve as GET, serve as POST, serve as PUT, serve as PATCH, serve as DELETE };
