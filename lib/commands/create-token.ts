import { createApiToken } from "@/lib/api/tokens";
import { auditChange } from "@/lib/audit/audit-change";
import type { Db } from "@/lib/db";

// Making an API token (POST /api/tokens, the console's "API tokens" page): the token and its audit row in
// one transaction. The row records what the token is (name, scopes, owner, expiry), never its value.

/** `by` makes the token (its owner unless `input.user` names another person); `via` says through what when not the console. */
export type CreateTokenCommand = { input: unknown; by: string; via?: string };

export async function createToken(deps: { db: Db }, command: CreateTokenCommand) {
  return deps.db.$transaction(async (tx) => {
    const token = await createApiToken(tx, command.input, { createdBy: command.by });
    await auditChange(tx, command, "tokens.create", {
      target: token.id,
      data: { name: token.name, scopes: token.scopes, user: token.user, expiresAt: token.expiresAt },
    });
    return token;
  });
}
