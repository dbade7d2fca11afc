import { createRequire } from "node:module";
import { NextRequest, type NextFetchEvent } from "next/server";
import { describe, expect, it, vi } from "vitest";
import { loadConfig } from "../lib/config";
import nextConfig, { SECURITY_HEADERS } from "../next.config";
import { DEFAULT_MAX_BODY_BYTES, jsonDepthExceeds, maxBodyBytes } from "../lib/api/body";
import { config as proxyConfig, proxy } from "../proxy";

// Trust boundaries without a database (docs/security.md): malformed percent-encoding in a path is a 400 from
// the proxy (Next would answer a bare 500 before any route runs), the security headers on every
// response, and the body limits' settings and depth scan. Body limits over HTTP: limits.int.test.ts.

// Auth.js's ESM build does not load under Vitest (it imports "next/server" without an extension); the
// paths tested here are answered before the proxy asks it for a session, so a stand-in that fails is enough.
vi.mock("next-auth", () => ({
  default: () => ({
    auth: () => {
      throw new Error("no session check expected");
    },
  }),
}));

/** How `next build` turns the proxy's matcher into regular expressions (the same function). */
const { getMiddlewareMatchers } = createRequire(import.meta.url)("next/dist/build/analysis/get-page-static-info") as {
  getMiddlewareMatchers: (matcher: unknown, nextConfig: object) => Array<{ regexp: string }>;
};
const proxyRuns = (pathname: string) =>
  getMiddlewareMatchers(proxyConfig.matcher, {}).some((m) => new RegExp(m.regexp).test(pathname));
const callProxy = (path: string) => proxy(new NextRequest(`http://localhost:3000${path}`), {} as NextFetchEvent);

describe("malformed percent-encoding in a path", () => {
  it("reaches the proxy for API paths only when they hold a %, and for every page", () => {
    expect(proxyRuns("/api/runs/%E0%A4%A")).toBe(true);
    expect(proxyRuns("/api/sandbox/orders/%ZZ")).toBe(true);
    expect(proxyRuns("/runs/%E0%A4%A")).toBe(true);
    expect(proxyRuns("/runs")).toBe(true);
    // a plain API call (and its body) never passes through the proxy
    expect(proxyRuns("/api/runs/run_1")).toBe(false);
    expect(proxyRuns("/api/runs")).toBe(false);
    expect(proxyRuns("/_next/static/chunks/main.js")).toBe(false);
  });

  it("is a 400 in the API's error shape, the sandbox's, or plain text for a page", async () => {
    const api = await callProxy("/api/runs/%E0%A4%A");
    expect(api.status).toBe(400);
    expect(await api.json()).toEqual({
      error: { code: "INVALID_INPUT", message: "The request path is not valid percent-encoding." },
    });
    const events = await callProxy("/api/runs/%ZZ/events");
    expect(events.status).toBe(400);

    const sandbox = await callProxy("/api/sandbox/orders/%E0%A4%A");
    expect(sandbox.status).toBe(400);
    expect(await sandbox.json()).toEqual({
      error: { code: "invalid_input", message: "The request path is not valid percent-encoding." },
    });

    const page = await callProxy("/runs/%E0%A4%A");
    expect(page.status).toBe(400);
    expect(page.headers.get("content-type")).toMatch(/^text\/plain/);
  });

  it("lets a well-formed encoded API path through to its route, untouched by sign-in", async () => {
    const response = await callProxy("/api/sandbox/customers/ada%40example.com/orders");
    expect(response.status).toBe(200);
    expect(response.headers.get("x-middleware-next")).toBe("1");
    expect(response.headers.get("set-cookie")).toBeNull();
  });
});

describe("security headers (next.config.ts)", () => {
  it("every page, route and asset refuses framing and sniffing and keeps the referrer on this site", async () => {
    const rules = await nextConfig.headers!();
    expect(rules).toEqual([{ source: "/:path*", headers: SECURITY_HEADERS }]);
    expect(Object.fromEntries(rules[0].headers.map((h) => [h.key, h.value]))).toEqual({
      "Content-Security-Policy": "frame-ancestors 'none'",
      "X-Frame-Options": "DENY",
      "X-Content-Type-Options": "nosniff",
      "Referrer-Policy": "same-origin",
    });
    // "/:path*" covers the root, pages, the API and static files alike
    const source = new RegExp(getMiddlewareMatchers("/:path*", {})[0].regexp);
    for (const path of ["/", "/runs", "/api/runs/run_1", "/signin", "/_next/static/chunks/main.js"])
      expect(source.test(path), path).toBe(true);
  });
});

describe("body limit settings", () => {
  it("TETHER_MAX_BODY_BYTES: a positive whole number of bytes, else 1 MiB", () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    expect(maxBodyBytes(loadConfig({}))).toBe(DEFAULT_MAX_BODY_BYTES);
    expect(DEFAULT_MAX_BODY_BYTES).toBe(1024 * 1024);
    expect(maxBodyBytes(loadConfig({ TETHER_MAX_BODY_BYTES: "2048" }))).toBe(2048);
    for (const bad of ["0", "-5", "1.5", "1e6", "lots", " "])
      expect(maxBodyBytes(loadConfig({ TETHER_MAX_BODY_BYTES: bad })), bad).toBe(DEFAULT_MAX_BODY_BYTES);
    warn.mockRestore();
  });

  it("the depth scan counts brackets outside strings only, without recursion", () => {
    expect(jsonDepthExceeds("[".repeat(64) + "]".repeat(64))).toBe(false);
    expect(jsonDepthExceeds("[".repeat(65) + "]".repeat(65))).toBe(true);
    expect(jsonDepthExceeds("[".repeat(1_000_000))).toBe(true);
    expect(jsonDepthExceeds(JSON.stringify({ a: "[{".repeat(1000) }))).toBe(false);
    expect(jsonDepthExceeds(JSON.stringify({ a: '\\"[[[' + "[".repeat(100) }))).toBe(false);
    // sibling arrays do not add up
    expect(jsonDepthExceeds(JSON.stringify(Array.from({ length: 1000 }, () => [[1]])))).toBe(false);
  });
});
