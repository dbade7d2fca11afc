import { randomUUID } from "node:crypto";
import { createApiToken } from "../../lib/api/tokens";
import type { ApiScope } from "../../lib/api/scopes";
import type { Role } from "../../lib/auth/rbac";
import type { Db } from "../../lib/db";
import { uid } from "./runtime";

/** A new person with `role` and an API token of theirs: a token always acts as a person. */
export async function createPersonWithToken(
  db: Db,
  opts: { role: Role; scopes: ApiScope[]; name?: string; expiresInDays?: number },
) {
  const email = `${uid(opts.role)}@example.com`;
  await db.user.create({ data: { id: `usr_${randomUUID().replaceAll("-", "")}`, email, role: opts.role } });
  const created = await createApiToken(
    db,
    { name: opts.name ?? uid(opts.role), scopes: opts.scopes, expiresInDays: opts.expiresInDays },
    { createdBy: email },
  );
  return { email, ...created };
}
