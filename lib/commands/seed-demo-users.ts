import { DEMO_PASSWORD, DEMO_USERS } from "@/lib/auth/mode";
import { hashPassword } from "@/lib/auth/password";
import type { Db } from "@/lib/db";
import { insertUser } from "./create-user";

// Demo mode's three accounts (password "tether-demo"), made by the seed and by set-up: each with its
// "users.create" audit row (actor "seed") in its own transaction. Idempotent: existing accounts are left alone.

export async function seedDemoUsers(deps: { db: Db }): Promise<void> {
  const passwordHash = await hashPassword(DEMO_PASSWORD);
  for (const demo of DEMO_USERS) {
    const exists = await deps.db.user.findUnique({ where: { email: demo.email }, select: { id: true } });
    if (exists) continue;
    await insertUser(
      deps.db,
      { email: demo.email, name: demo.name, role: demo.role, passwordHash },
      { actor: "seed", action: "users.create" },
    );
  }
}
