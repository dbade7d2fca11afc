import { readdirSync } from "node:fs";
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";

// Serves the app's route handlers (app/api/**/route.ts) over real HTTP on a node:http server, so API
// tests cross a real network boundary without a `next build`. Routing mirrors the App Router's folder
// convention ([id] segments); the handlers are the same functions Next serves. Answers are streamed.

type Handler = (request: Request, context: { params: Promise<Record<string, string | string[]>> }) => Promise<Response>;
type Route = { pattern: RegExp; names: string[]; catchAll: boolean; load: () => Promise<Record<string, Handler>> };

function discoverRoutes(root: string, dir = "app/api"): Route[] {
  const routes: Route[] = [];
  for (const entry of readdirSync(path.join(root, dir), { withFileTypes: true })) {
    const rel = path.join(dir, entry.name);
    if (entry.isDirectory()) routes.push(...discoverRoutes(root, rel));
    else if (entry.name === "route.ts") {
      const segments = dir.replace(/^app/, "").split("/").filter(Boolean);
      const names: string[] = [];
      const catchAll = segments.some((s) => s.startsWith("[..."));
      const pattern = segments
        .map((s) =>
          s.startsWith("[...")
            ? (names.push(s.slice(4, -1)), "(.+)")
            : s.startsWith("[")
              ? (names.push(s.slice(1, -1)), "([^/]+)")
              : s,
        )
        .join("/");
      routes.push({
        pattern: new RegExp(`^/${pattern}/?$`),
        names,
        catchAll,
        load: () => import(path.join(root, rel)),
      });
    }
  }
  // Static segments win over dynamic ones, and both over a catch-all ([...path]), as in Next.
  return routes.sort((a, b) => Number(a.catchAll) - Number(b.catchAll) || a.names.length - b.names.length);
}

async function toRequest(req: IncomingMessage, base: string): Promise<Request> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const body = chunks.length ? Buffer.concat(chunks) : undefined;
  return new Request(new URL(req.url ?? "/", base), {
    method: req.method,
    headers: req.headers as Record<string, string>,
    body: req.method === "GET" || req.method === "HEAD" ? undefined : body,
  });
}

export async function startRouteServer(root = process.cwd()): Promise<{ url: string; close: () => Promise<void> }> {
  const routes = discoverRoutes(root);
  const server = createServer(async (req, res) => {
    const base = `http://${req.headers.host}`;
    const pathname = new URL(req.url ?? "/", base).pathname;
    const route = routes.find((r) => r.pattern.test(pathname));
    const handler = route && (await route.load())[req.method ?? "GET"];
    if (!route || !handler) {
      res
        .writeHead(route ? 405 : 404, { "content-type": "application/json" })
        .end(JSON.stringify({ error: { code: route ? "METHOD_NOT_ALLOWED" : "NOT_FOUND", message: "no such route" } }));
      return;
    }
    const match = route.pattern.exec(pathname)!;
    // A catch-all's parameter is its segments, each decoded, as Next passes it.
    const params = Object.fromEntries(
      route.names.map((n, i) => [
        n,
        route.catchAll && i === route.names.length - 1
          ? match[i + 1].split("/").map(decodeURIComponent)
          : decodeURIComponent(match[i + 1]),
      ]),
    );
    const response = await handler(await toRequest(req, base), { params: Promise.resolve(params) });
    res.writeHead(response.status, Object.fromEntries(response.headers));
    if (!response.body) return void res.end();
    // Streamed as the handler writes it (an SSE answer arrives event by event); a client that hangs up cancels it.
    const reader = response.body.getReader();
    res.on("close", () => void reader.cancel().catch(() => {}));
    for (;;) {
      const { done, value } = await reader.read().catch(() => ({ done: true as const, value: undefined }));
      if (done) break;
      res.write(value);
    }
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
