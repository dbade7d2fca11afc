// API tokens for the admin "API tokens" page. The token itself is never read back (only its hash is
// stored): the list shows name, prefix, scopes and dates.
import { findApiTokens, type ApiTokenRecord } from "@/lib/api/tokens";
import { getDb, type Db } from "@/lib/db";

export type TokenRow = ApiTokenRecord;

/** Active tokens first, then revoked ones; newest first within each. */
export async function findTokens(db: Db = getDb()): Promise<TokenRow[]> {
  const rows = await findApiTokens(db);
  return rows.sort((a, b) => Number(a.revokedAt !== null) - Number(b.revokedAt !== null));
}
