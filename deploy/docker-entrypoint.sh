#!/bin/sh
# The image's entrypoint: the first argument picks the role. Each role execs its process, so it gets
# SIGTERM directly and drains (lib/lifecycle/shutdown.ts) within TETHER_SHUTDOWN_MS.
set -eu
# The app's folder (/app in the image): this script lives in its deploy/ folder.
app="$(cd "$(dirname "$0")/.." && pwd)"
role="${1:-console}"
[ "$#" -gt 0 ] && shift
case "$role" in
  console)
    # Next's standalone server; it changes to its own folder, where prisma/ (for readiness) sits too.
    exec node "$app/console/server.js" "$@"
    ;;
  worker)
    cd "$app"
    exec node --import tsx scripts/worker.ts "$@"
    ;;
  migrate)
    # Creates the Postgres database if missing, applies the shipped migrations, the runs search index, and
    # the TETHER_BOOTSTRAP_TOKEN admin token when set. No demo seed.
    cd "$app"
    exec node --import tsx scripts/setup.ts --no-seed "$@"
    ;;
  *)
    # Anything else runs as given (e.g. `node --import tsx scripts/create-admin.ts …` from /app).
    cd "$app"
    exec "$role" "$@"
    ;;
esac
