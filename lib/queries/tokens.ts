// API tokens for the admin "API tokens" page. The token itself is never read back (only its hash is
// stored): the list shows name, prefix, scopes and dates.
import { findApiTokens } from "@/lib/api/tokens";
import type { ApiScope } from "@/lib/api/scopes";
import { getDb, type Db } from "@/lib/db";

export type TokenRow = { id: string; name: string; prefix: string; scopes: ApiScope[]; createdBy: string; createdAt: Date; lastUsedAt: Date | null; revokedAt: Date | null };

/** Active tokens first, then revoked ones; newest first within each. */
export async function findTokens(db: Db = getDb()): Promise<TokenRow[]> {
  const rows = await findApiTokens(db);
  return rows
    .map(({ id, name, prefix, scopes, createdBy, createdAt, lastUsedAt, revokedAt }) => ({ id, name, prefix, scopes, createdBy, createdAt, lastUsedAt, revokedAt }))
    .sort((a, b) => Number(a.revokedAt !== null) - Number(b.revokedAt !== null));
}
