import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import type { ApiScope } from "../../lib/api/scopes";
import type { Scope } from "../../lib/auth/rbac";
import { SANDBOX_ROUTES } from "../../lib/sandbox/routes";

// Security (docs/security.md): who may call what, as one table the tests hold the code to. Every route handler the app
// serves (app/api/**/route.ts, each exported HTTP method) and every server action ("use server" modules'
// exports) must have an entry here, and every entry must name something that exists: a new route or
// action without an entry fails tests/authorization-matrix.int.test.ts until someone says who may use it.

export const HTTP_METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

/**
 * How a route authenticates:
 * - an API scope (`runs:read`…): a bearer token (lib/api/route.ts) whose scopes, bounded by its owner's role, include it;
 *   a list of scopes: one of them;
 * - `console:<scope>`: the signed-in person's session (lib/api/console-route.ts) and their role's console scope;
 * - `sandbox`: an admin token, an admin's session or the internal key (lib/sandbox/access.ts);
 * - `bearer-any`: any valid token of an active person (each MCP tool checks its own scope);
 * - `signature`: a Standard Webhooks signature by the source's secret (no token);
 * - `authjs`: Auth.js's own endpoints (sign-in, callbacks, session, CSRF);
 * - `method-not-allowed`: answers 405 to everyone;
 * - null: public.
 */
export type RouteAuth =
  | ApiScope
  | readonly ApiScope[]
  | `console:${Scope}`
  | "sandbox"
  | "bearer-any"
  | "signature"
  | "authjs"
  | "method-not-allowed"
  | null;

/** "METHOD /api/path/[param]" (as the folders name it), or "/api/prefix/**" for every method of every route below. */
export const ROUTE_TABLE: Record<string, RouteAuth> = {
  "GET /api/health": null,
  "GET /api/health/live": null,
  "GET /api/health/ready": null,
  "GET /api/agents": "runs:read",
  "POST /api/agents/[slug]/versions/[version]/upgrade": "runs:write",
  "GET /api/runs": "runs:read",
  "POST /api/runs": "runs:write",
  "GET /api/runs/[id]": "runs:read",
  "DELETE /api/runs/[id]": "admin",
  "POST /api/runs/[id]/cancel": "runs:write",
  "POST /api/runs/[id]/resume": "runs:write",
  "POST /api/runs/[id]/upgrade": "runs:write",
  "GET /api/runs/[id]/events": "runs:read",
  "POST /api/runs/[id]/signals": "signals:write",
  "GET /api/packets": "runs:read",
  "POST /api/packets/[id]/decision": "packets:decide",
  "POST /api/packets/[id]/check": "packets:decide",
  "GET /api/queues": "admin",
  "PUT /api/queues/[name]": "admin",
  "GET /api/tokens": "admin",
  "POST /api/tokens": "admin",
  "DELETE /api/tokens/[id]": "admin",
  "GET /api/tools": "admin",
  "POST /api/tools": "admin",
  "DELETE /api/tools/[id]": "admin",
  "POST /api/tools/mcp/discover": "admin",
  "GET /api/notifications": "admin",
  "POST /api/notifications": "admin",
  "DELETE /api/notifications/[id]": "admin",
  "GET /api/metrics": "metrics:read",
  "GET /api/schedules": "schedules:read",
  "POST /api/schedules": "schedules:write",
  "GET /api/schedules/[id]": "schedules:read",
  "PATCH /api/schedules/[id]": "schedules:write",
  "DELETE /api/schedules/[id]": "schedules:write",
  "POST /api/gates": "gates:request",
  "GET /api/gates/[id]": ["gates:request", "runs:read"],
  "POST /api/gates/[id]/outcome": "gates:request",
  "POST /api/mcp": "bearer-any",
  // A2A's JSON-RPC binding: any active person's token; each method checks its scope (runs:write, runs:read, packets:decide).
  "POST /api/a2a": "bearer-any",
  "GET /api/audit": "admin",
  "GET /api/console/audit": "console:admin:manage",
  "GET /api/mcp": "method-not-allowed",
  "DELETE /api/mcp": "method-not-allowed",
  "POST /api/webhooks/[source]": "signature",
  "GET /api/langgraph/info": null,
  "POST /api/langgraph/threads/search": "runs:read",
  "GET /api/langgraph/threads/[id]": "runs:read",
  "GET /api/langgraph/threads/[id]/state": "runs:read",
  "POST /api/langgraph/threads/[id]/state": "packets:decide",
  "POST /api/langgraph/threads/[id]/runs": "packets:decide",
  "POST /api/langgraph/threads/[id]/runs/wait": "packets:decide",
  "POST /api/langgraph/threads/[id]/runs/stream": "packets:decide",
  // CORS preflights for the Agent Inbox's browser (lib/langgraph/cors.ts): no token, nothing but headers.
  "OPTIONS /api/langgraph/info": null,
  "OPTIONS /api/langgraph/threads/search": null,
  "OPTIONS /api/langgraph/threads/[id]": null,
  "OPTIONS /api/langgraph/threads/[id]/state": null,
  "OPTIONS /api/langgraph/threads/[id]/runs": null,
  "OPTIONS /api/langgraph/threads/[id]/runs/wait": null,
  "OPTIONS /api/langgraph/threads/[id]/runs/stream": null,
  // Slack's own request signature (TETHER_SLACK_SIGNING_SECRET): no token, session or key of ours gets past 401.
  "POST /api/slack/interactions": "signature",
  // No token or session: the decision link's signed token in the body is the credential (tests/decision-links.int.test.ts).
  "POST /api/decision-links": null,
  "GET /api/console/packets": "console:packets:read",
  "GET /api/console/packets/[id]": "console:packets:read",
  "GET /api/console/packets/changes": "console:packets:read",
  "GET /api/console/packets/count": "console:packets:read",
  "GET /api/console/packets/history.csv": "console:packets:read",
  "GET /api/console/packets/stream": "console:packets:read",
  "GET /api/console/runs/[id]/checkpoints": "console:runs:read",
  "GET /api/console/runs/[id]/events": "console:runs:read",
  "GET /api/console/runs/[id]/snapshot": "console:runs:read",
  "GET /api/console/runs/[id]/stream": "console:runs:read",
  "GET /api/console/runs/[id]/trace-summary": "console:runs:read",
  "GET /api/console/evals/runs/[id]": "console:runs:read",
  "GET /api/console/evals/datasets/[name]/export": "console:runs:read",
  "/api/sandbox/**": "sandbox",
  "/api/auth/**": "authjs",
};

export type DiscoveredRoute = {
  /** "/api/runs/[id]" */
  template: string;
  /** app/api/runs/[id]/route.ts */
  file: string;
  methods: HttpMethod[];
};

/**
 * Every app/api/**\/route.ts and the HTTP methods it exports. Read from the source (exportedNames), not
 * imported: Auth.js's route cannot load under Vitest, and a table check must not depend on what loads.
 */
export function discoverApiRoutes(root = process.cwd()): DiscoveredRoute[] {
  return findFiles(root, "app/api", (name) => name === "route.ts").flatMap((file) => {
    const names = exportedNames(readFileSync(path.join(root, file), "utf8"));
    const route = {
      template: `/${path.dirname(file).replace(/^app\//, "")}`,
      file,
      methods: HTTP_METHODS.filter((m) => names.includes(m)),
    };
    return route.template === SANDBOX_CATCH_ALL ? [route, ...sandboxTableRoutes(file)] : [route];
  });
}

const SANDBOX_CATCH_ALL = "/api/sandbox/[...path]";

/** The sandbox's routes, which its catch-all serves from one table (lib/sandbox/routes.ts): each is checked as a route of its own. */
function sandboxTableRoutes(file: string): DiscoveredRoute[] {
  return SANDBOX_ROUTES.map((route) => ({
    template: `/api/sandbox/${route.pattern}`,
    file,
    methods: HTTP_METHODS.filter((m) => m in route.handlers),
  }));
}

/**
 * The names a module exports, from its source: `export [async] function X`, `export const|let|var X`,
 * `export const { A, B: C } = …` (A and C), `export { a as X, Y }`. `export *` and default exports are
 * refused: the table could not see what they add.
 */
export function exportedNames(source: string): string[] {
  const code = source.replace(/\/\*[\s\S]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, "");
  if (/export\s*\*/.test(code) || /export\s+default\b/.test(code))
    throw new Error("exportedNames: `export *` and default exports are not supported");
  const names: string[] = [];
  for (const m of code.matchAll(/export\s+(?:async\s+)?function\s*\*?\s*([A-Za-z_$][\w$]*)/g)) names.push(m[1]);
  for (const m of code.matchAll(/export\s+(?:const|let|var)\s+([A-Za-z_$][\w$]*)/g)) names.push(m[1]);
  for (const m of code.matchAll(/export\s+(?:const|let|var)\s*\{([^}]*)\}/g))
    names.push(
      ...m[1]
        .split(",")
        .map((part) => part.split(":").at(-1)!.trim())
        .filter(Boolean),
    );
  for (const m of code.matchAll(/export\s*(?:type\s*)?\{([^}]*)\}(?!\s*=)/g)) {
    if (/^export\s*type/.test(m[0])) continue;
    names.push(
      ...m[1]
        .split(",")
        .map((part) => part.trim())
        .filter((part) => part && !part.startsWith("type "))
        .map((part) =>
          part
            .split(/\s+as\s+/)
            .at(-1)!
            .trim(),
        ),
    );
  }
  return [...new Set(names)];
}

/** The table's entry that covers this route and method: an exact "METHOD path", else the longest "prefix/**". */
export function tableKeyFor(template: string, method: HttpMethod): string | null {
  const exact = `${method} ${template}`;
  if (exact in ROUTE_TABLE) return exact;
  const wildcards = Object.keys(ROUTE_TABLE)
    .filter((key) => key.endsWith("/**") && (template === key.slice(0, -3) || template.startsWith(key.slice(0, -2))))
    .sort((a, b) => b.length - a.length);
  return wildcards[0] ?? null;
}

export type TableCheck = { unlisted: string[]; unused: string[] };

/** Routes without an entry, and entries that name no route (both must be empty). */
export function checkRouteTable(routes: DiscoveredRoute[]): TableCheck {
  const used = new Set<string>();
  const unlisted: string[] = [];
  for (const route of routes) {
    for (const method of route.methods) {
      const key = tableKeyFor(route.template, method);
      if (key) used.add(key);
      else unlisted.push(`${method} ${route.template}`);
    }
  }
  return { unlisted, unused: Object.keys(ROUTE_TABLE).filter((key) => !used.has(key)) };
}

/** A concrete path for a route template: each [param] (and [...rest]) replaced by `value(name)`, URL-encoded. */
export function concretePath(template: string, value: (name: string) => string): string {
  return template.replace(/\[(?:\.\.\.)?([^\]]+)\]/g, (_m, name: string) => encodeURIComponent(value(name)));
}

/** Files under `dir` (relative to root) whose name passes `accept`, as root-relative paths. */
export function findFiles(root: string, dir: string, accept: (name: string) => boolean): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(path.join(root, dir), { withFileTypes: true })) {
    const rel = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== "node_modules" && entry.name !== "generated") out.push(...findFiles(root, rel, accept));
    } else if (accept(entry.name)) out.push(rel);
  }
  return out.sort();
}

/** Modules that start with the "use server" directive under app/ and lib/: each export is a server action. */
export function findServerActionModules(root = process.cwd()): string[] {
  return ["app", "lib"]
    .flatMap((dir) => findFiles(root, dir, (name) => /\.(ts|tsx)$/.test(name) && !/\.test\.tsx?$/.test(name)))
    .filter((file) =>
      /^(?:\s*(?:\/\/[^\n]*|\/\*[\s\S]*?\*\/))*\s*["']use server["']/.test(readFileSync(path.join(root, file), "utf8")),
    );
}
