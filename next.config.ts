import type { NextConfig } from "next";

const nextConfig: NextConfig = {
  // Native or Node-only packages: load them from node_modules at run time instead of bundling them.
  serverExternalPackages: ["better-sqlite3", "@prisma/adapter-better-sqlite3", "pg", "@prisma/adapter-pg"],
  poweredByHeader: false,
};

export default nextConfig;
