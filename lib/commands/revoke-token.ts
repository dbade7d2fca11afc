import { revokeApiToken } from "@/lib/api/tokens";
import { auditChange } from "@/lib/audit/audit-change";
import type { Db } from "@/lib/db";

// Revoking an API token (DELETE /api/tokens/:id, the console's "API tokens" page): the revocation and its
// audit row in one transaction. NOT_FOUND when there is no such token or it is already revoked.

export type RevokeTokenCommand = { tokenId: string; by: string; via?: string };

export async function revokeToken(deps: { db: Db }, command: RevokeTokenCommand): Promise<void> {
  await deps.db.$transaction(async (tx) => {
    await revokeApiToken(tx, command.tokenId);
    await auditChange(tx, command, "tokens.revoke", { target: command.tokenId });
  });
}
