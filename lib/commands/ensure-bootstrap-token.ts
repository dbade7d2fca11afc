import { randomUUID } from "node:crypto";
import { BOOTSTRAP_OWNER_EMAIL, createApiToken, hashToken } from "@/lib/api/tokens";
import { writeAudit } from "@/lib/audit/audit-log";
import type { Db, DbTransaction } from "@/lib/db";

// TETHER_BOOTSTRAP_TOKEN (scripts/setup.ts, on every start): an admin token with exactly that value, created once
// (for scripts and CI), owned by BOOTSTRAP_OWNER_EMAIL. The owner, the token and their audit rows ("users.create",
// "tokens.create"; actor "setup", as the token's createdBy says) are written in one transaction. A revoked token
// stays revoked: revoking is how an admin takes it away, and the next start must not give it back. "revoked" tells
// the caller to say so.

const SETUP = "setup";

export async function ensureBootstrapToken(deps: { db: Db }, value: string): Promise<"created" | "exists" | "revoked"> {
  if (value.length < 16) throw new Error("TETHER_BOOTSTRAP_TOKEN must be at least 16 characters");
  return deps.db.$transaction(async (tx) => {
    const owner = await ensureBootstrapOwner(tx);
    const existing = await tx.apiToken.findUnique({
      where: { tokenHash: hashToken(value) },
      select: { id: true, revokedAt: true, userId: true },
    });
    if (existing) {
      // A bootstrap token from before tokens had owners gets its owner (it would be refused without one).
      if (!existing.userId)
        await tx.apiToken.update({ where: { id: existing.id }, data: { userId: owner.id }, select: { id: true } });
      return existing.revokedAt ? "revoked" : "exists";
    }
    const token = await createApiToken(
      tx,
      { name: "bootstrap", scopes: ["admin"], user: BOOTSTRAP_OWNER_EMAIL },
      { createdBy: SETUP, value },
    );
    await writeAudit(tx, {
      actor: SETUP,
      action: "tokens.create",
      target: token.id,
      data: { name: token.name, scopes: token.scopes, user: token.user, expiresAt: token.expiresAt },
      via: "TETHER_BOOTSTRAP_TOKEN",
    });
    return "created";
  });
}

/** The token's owner, made (with its "users.create" row) the first time. */
async function ensureBootstrapOwner(tx: DbTransaction): Promise<{ id: string }> {
  const known = await tx.user.findUnique({ where: { email: BOOTSTRAP_OWNER_EMAIL }, select: { id: true } });
  if (known) return known;
  // An upsert, not a create: two starts at once must not fail on the unique email.
  const owner = await tx.user.upsert({
    where: { email: BOOTSTRAP_OWNER_EMAIL },
    create: {
      id: `usr_${randomUUID().replaceAll("-", "")}`,
      email: BOOTSTRAP_OWNER_EMAIL,
      name: "Bootstrap token (TETHER_BOOTSTRAP_TOKEN)",
      role: "admin",
    },
    update: {},
    select: { id: true, role: true },
  });
  await writeAudit(tx, {
    actor: SETUP,
    action: "users.create",
    target: BOOTSTRAP_OWNER_EMAIL,
    data: { role: owner.role, hasPassword: false },
    via: "TETHER_BOOTSTRAP_TOKEN",
  });
  return owner;
}
