import type { NextConfig } from "next";

// Sent with every page, route and asset. Framing is refused twice (CSP frame-ancestors for current
// browsers, X-Frame-Options for old ones), so no other site can overlay the console to steal clicks.
// Deliberately no script CSP: Next's inline bootstrap scripts would need nonces on every page.
export const SECURITY_HEADERS = [
  { key: "Content-Security-Policy", value: "frame-ancestors 'none'" },
  { key: "X-Frame-Options", value: "DENY" },
  { key: "X-Content-Type-Options", value: "nosniff" },
  { key: "Referrer-Policy", value: "same-origin" },
];

const nextConfig: NextConfig = {
  // The image (Dockerfile) builds with TETHER_STANDALONE_BUILD=1 and runs .next/standalone/server.js: the server
  // with only the node_modules it traces. Elsewhere (npm start, the e2e tests) `next start` serves an ordinary
  // build, which it would otherwise warn about.
  output: process.env.TETHER_STANDALONE_BUILD === "1" ? "standalone" : undefined,
  // Native or Node-only packages: load them from node_modules at run time instead of bundling them.
  serverExternalPackages: ["better-sqlite3", "@prisma/adapter-better-sqlite3", "pg", "@prisma/adapter-pg"],
  poweredByHeader: false,
  // The proxy sees the URL the server itself was asked for. Normalized, it is rebuilt as http://localhost:<port>, and
  // when the server listens on one address (npm start's demo mode binds 127.0.0.1) Next takes the proxy's rewrite of
  // /w/<slug>/runs to /runs for another origin, sends it back through the proxy, and the page redirects to itself.
  skipProxyUrlNormalize: true,
  async headers() {
    return [{ source: "/:path*", headers: SECURITY_HEADERS }];
  },
};

export default nextConfig;
