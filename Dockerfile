# syntax=docker/dockerfile:1
# One image for every Tether process; its first argument picks the role (deploy/docker-entrypoint.sh):
#   console  the web console and HTTP API: Next's standalone server (.next/standalone/server.js)
#   worker   a standalone worker (scripts/worker.ts, as `npm run worker`)
#   migrate  applies the shipped migrations once (scripts/setup.ts --no-seed, as `npm run db:deploy`)
# docs/deploy.md walks through it; deploy/compose.yaml and deploy/helm/tether run it.

ARG NODE_IMAGE=node:20-bookworm-slim

# ---- dependencies: every package (the build needs the dev ones), both Prisma clients generated
FROM ${NODE_IMAGE} AS deps
WORKDIR /app
# better-sqlite3 compiles from source when no prebuilt binary fits.
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json .npmrc ./
# postinstall (scripts/generate.ts) generates lib/generated/{sqlite,postgres} from prisma/.
COPY scripts/generate.ts ./scripts/generate.ts
COPY prisma.config.ts tsconfig.json ./
COPY prisma ./prisma
RUN npm ci --no-audit --no-fund

# ---- the build: next build with output "standalone" (TETHER_STANDALONE_BUILD=1, read by next.config.ts)
FROM deps AS build
ENV NEXT_TELEMETRY_DISABLED=1
COPY . .
RUN TETHER_STANDALONE_BUILD=1 npx next build

# ---- production node_modules, for the worker and migrate roles (tsx, prisma, the adapters)
FROM deps AS prod-deps
RUN npm prune --omit=dev --no-audit --no-fund

# ---- the image
FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production \
    NEXT_TELEMETRY_DISABLED=1 \
    CHECKPOINT_DISABLE=1 \
    PRISMA_HIDE_UPDATE_MESSAGE=1 \
    HOSTNAME=0.0.0.0 \
    PORT=3000 \
    TETHER_DATA_DIR=/app/data
WORKDIR /app
# worker and migrate run the TypeScript sources with tsx, on the production node_modules
COPY --from=prod-deps /app/node_modules ./node_modules
COPY --from=build /app/package.json /app/tsconfig.json /app/prisma.config.ts ./
COPY --from=build /app/lib ./lib
COPY --from=build /app/agents ./agents
COPY --from=build /app/scripts ./scripts
COPY --from=build /app/prisma ./prisma
# console: the standalone server with the node_modules it traced, its static assets, and the migrations
# its readiness compares with the database (it runs from /app/console: server.js changes to its folder)
COPY --from=build /app/.next/standalone ./console
COPY --from=build /app/.next/static ./console/.next/static
COPY --from=build /app/prisma ./console/prisma
# agents' sources where the bundle resolves their import.meta.url (relative to /app/console), so the console
# derives the same agent versions as the worker does from /app/lib and /app/agents (docs/agents.md, versions)
COPY --from=build /app/lib/agents ./console/lib/agents
COPY --from=build /app/agents ./console/agents
COPY deploy/docker-entrypoint.sh ./deploy/docker-entrypoint.sh
# The official image's unprivileged user (uid 1000); the data dir holds generated secrets when none is set.
RUN chmod 0755 ./deploy/docker-entrypoint.sh && mkdir -p /app/data && chown node:node /app/data
USER node
EXPOSE 3000
# The console's liveness; the worker and migrate roles serve no HTTP (the check passes while they run).
HEALTHCHECK --interval=15s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "const a=require('fs').readFileSync('/proc/1/cmdline','utf8').split('\\0');if(!a.includes('console')&&!a.includes('server.js'))process.exit(0);fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/api/health/live').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
ENTRYPOINT ["/app/deploy/docker-entrypoint.sh"]
CMD ["console"]
