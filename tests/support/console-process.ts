// A console process for tests of several replicas: the app's route handlers served over HTTP
// (./route-server.ts) in a process of its own, with its own memory, on the database DATABASE_URL names.
// Prints "LISTENING <url>" when it serves.
import { startRouteServer } from "./route-server";

void startRouteServer().then((server) => {
  process.stdout.write(`LISTENING ${server.url}\n`);
  process.on("SIGTERM", () => void server.close().then(() => process.exit(0)));
});
