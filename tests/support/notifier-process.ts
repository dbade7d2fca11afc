// A console process's notifications loop alone (lib/notifications/dispatcher.ts), in a process of its
// own on the database DATABASE_URL names, for tests of several replicas. It runs pass after pass and
// prints "PASS <n> <result JSON>" after each, so a test can wait for passes instead of for time.
import { createDb } from "../../lib/db";
import { startNotifications } from "../../lib/notifications/dispatcher";

const notifications = startNotifications({
  db: createDb(process.env.DATABASE_URL),
  baseUrl: "https://tether.example.com",
  smtp: null,
  intervalMs: 0,
  retry: { baseDelayMs: 0 },
  logger: {
    info() {},
    warn: (msg) => console.error(`[warn] ${msg}`),
    error: (msg, data) => console.error(`[error] ${msg}`, JSON.stringify(data ?? {})),
  },
});

void (async () => {
  for (let n = 1; ; n++) {
    const result = await notifications.runOnce();
    process.stdout.write(`PASS ${n} ${JSON.stringify(result)}\n`);
    await new Promise((resolve) => setTimeout(resolve, 10)); // the loop's own pace, like the console's 2 s timer
  }
})();
