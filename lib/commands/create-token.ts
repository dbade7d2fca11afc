import { createApiToken } from "@/lib/api/tokens";
import { auditedCreation, type CreateCommand } from "./audited-creation";

// Making an API token (POST /api/tokens, the console's "API tokens" page): the token and its audit row in
// one transaction. The row records what the token is (name, scopes, owner, expiry), never its value.

/** `by` makes the token (its owner unless `input.user` names another person); `via` says through what when not the console. */
export type CreateTokenCommand = CreateCommand;

export const createToken = auditedCreation(
  "tokens.create",
  (tx, { input, by }) => createApiToken(tx, input, { createdBy: by }),
  ({ name, scopes, user, expiresAt }) => ({ name, scopes, user, expiresAt }),
);
