import { z } from "zod";
import { requireScope, type Scope, type SessionUser } from "@/lib/auth/rbac";
import { getDb, type Db } from "@/lib/db";
import { inWorkspace } from "@/lib/runtime/workspace";
import { personInWorkspace } from "@/lib/workspaces/members";
import { WORKSPACE_PARAM } from "@/lib/workspaces/paths";
import { enforceRateLimit } from "./rate-limit";
import { errorResponse, parse } from "./route";

// The console's own read routes (under /api/console/…), polled by TanStack Query for live views. Same
// thin shape as defineRoute, but the caller is the signed-in person (Auth.js session cookie), not a
// bearer token: authenticate → authorize (the role's scope) → parse → one query → JSON.

type RouteContext = { params: Promise<Record<string, string>> };
type Schema = z.ZodType;

export function defineConsoleRoute<P extends Schema = z.ZodObject, Q extends Schema = z.ZodObject>(
  opts: { scope: Scope; params?: P; query?: Q },
  handler: (input: {
    user: SessionUser;
    params: z.infer<P>;
    query: z.infer<Q>;
    /** The console's database, for the query the handler calls (app/ holds no client of its own). */
    db: Db;
    request: Request;
  }) => Promise<Response | unknown>,
) {
  return async (request: Request, context: RouteContext): Promise<Response> => {
    try {
      // Imported lazily so this module can be loaded without Auth.js (as defineAction does).
      const { getCurrentUser } = await import("@/lib/auth/session");
      const { [WORKSPACE_PARAM]: named, ...search } = Object.fromEntries(new URL(request.url).searchParams);
      // A stream's request names its page's workspace in the query (an EventSource sends no header of ours).
      const person = await getCurrentUser();
      const user = requireScope(person && named ? await personInWorkspace(getDb(), person, named) : person, opts.scope);
      await enforceRateLimit([`person:${user.email}`]);
      const params = parse(opts.params, await context.params, "path");
      const query = parse(opts.query, search, "query");
      const act = () => handler({ user, params, query, db: getDb(), request });
      const result = user.workspace ? await inWorkspace(user.workspace.id, act) : await act();
      return result instanceof Response ? result : Response.json(result, { headers: { "cache-control": "no-store" } });
    } catch (error) {
      return errorResponse(error);
    }
  };
}
