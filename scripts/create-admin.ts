// `npx tether create-admin --email <e> --password <p> [--name "…"]` (or --password-stdin): creates an
// admin user directly in the configured database (DATABASE_URL / TETHER_DATA_DIR, .env files read like
// the app does) — not through the HTTP API, so it needs shell access to the server, which is the point:
// outside demo mode this is how the first admin comes to exist. Refuses a weak password and an email
// that already has an account. bin/tether.mjs runs scripts/setup.ts first, so the database exists.
import { userInfo } from "node:os";
import { createUser } from "../lib/commands/create-user.ts";
import { isAppError } from "../lib/runtime/errors.ts";
import { exitWith, openConfiguredDb } from "./local-command.ts";

function flag(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  const value = i >= 0 ? process.argv[i + 1] : undefined;
  return value === undefined || value.startsWith("--") ? undefined : value;
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks)
    .toString("utf8")
    .replace(/\r?\n$/, "");
}

async function main(): Promise<number> {
  const email = flag("email");
  const password = process.argv.includes("--password-stdin") ? await readStdin() : flag("password");
  if (!email || !password) {
    console.error(
      "usage: tether create-admin --email <email> (--password <password> | --password-stdin) [--name <name>]",
    );
    return 2;
  }
  const db = openConfiguredDb();
  try {
    const user = await createUser(
      { db },
      { email, password, name: flag("name"), role: "admin" },
      { by: `cli:${userInfo().username}` },
    );
    console.log(`created admin ${user.email} (${user.id}); sign in at /signin`);
    return 0;
  } catch (error) {
    if (isAppError(error)) {
      console.error(`tether: ${error.userMessage}`);
      return error.code === "INVALID_INPUT" ? 2 : 1;
    }
    throw error;
  } finally {
    await db.$disconnect();
  }
}

exitWith(main, "create-admin");
