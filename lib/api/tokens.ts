import { asSystem, DEFAULT_WORKSPACE_ID } from "@/lib/runtime/workspace";
import { roleIn } from "@/lib/workspaces/members";
import { activeWorkspace } from "@/lib/workspaces/scope";
import { createHash, randomBytes } from "node:crypto";
import { newRecordId } from "@/lib/runtime/record-id";
import { z } from "zod";
import type { Db } from "@/lib/db";
import { AppError, parseInput } from "@/lib/runtime/errors";
import { API_SCOPES, ROLE_API_SCOPES, scopesWithinRole, type ApiScope } from "./scopes";

// Bearer tokens for the HTTP API. Only a sha256 of the token is stored; the token is shown once.
// A token belongs to a person and acts as them: its principal is their email (so four eyes and "who
// started the run" count people, not token names), their role bounds its scopes, and the token is
// refused once they are disabled, once it is revoked, and after its expiry.

/** A token acts in the one workspace it was made in (`workspaceId`): the API takes the workspace from the token. */
export type ApiPrincipal = {
  tokenId: string;
  name: string;
  scopes: ApiScope[];
  principal: string;
  workspaceId: string;
};

/** A client or an interactive transaction (a route writes the token and its audit row in one). */
type TokenDb = Pick<Db, "apiToken" | "user">;

/** What is stored of a token: its sha256. */
export const hashToken = (token: string) => createHash("sha256").update(token).digest("hex");

/**
 * The owner of the TETHER_BOOTSTRAP_TOKEN (lib/commands/ensure-bootstrap-token.ts): an admin who cannot sign in (no
 * password); disabling it refuses the token.
 */
export const BOOTSTRAP_OWNER_EMAIL = "bootstrap@tether.invalid";

export const createApiTokenSchema = z.object({
  name: z.string().trim().min(1).max(100),
  scopes: z.array(z.enum(API_SCOPES)).min(1, "Give the token at least one scope."),
  /** The person the token acts as (an email); by default whoever creates it. */
  user: z.string().trim().toLowerCase().email().max(254).optional(),
  /** Days until the token is refused; none: it does not expire. */
  expiresInDays: z.number().int().min(1).max(3650).optional(),
});

const invalid = (field: string, message: string) =>
  new AppError("INVALID_INPUT", {
    message: `invalid token request: ${message}`,
    userMessage: "The token request is invalid.",
    fieldErrors: { [field]: [message] },
  });

export async function createApiToken(
  db: TokenDb,
  input: unknown,
  opts: { createdBy: string; value?: string; now?: Date },
) {
  const { name, scopes, expiresInDays, user } = parseInput(createApiTokenSchema, input, "token request");
  const ownerEmail = user ?? opts.createdBy.toLowerCase();
  const workspaceId = (await activeWorkspace()) ?? DEFAULT_WORKSPACE_ID;
  const owner = await db.user.findUnique({
    where: { email: ownerEmail },
    select: { id: true, email: true, disabledAt: true },
  });
  const role = owner && !owner.disabledAt ? await roleIn(db as Db, { userId: owner.id }, workspaceId) : null;
  if (!owner || !role)
    throw invalid("user", `No active person of this workspace has the email ${ownerEmail}: a token acts as a person.`);
  const beyond = scopes.filter((scope) => !ROLE_API_SCOPES[role].includes(scope));
  if (beyond.length > 0)
    throw invalid("scopes", `${owner.email} is a ${role}: their token cannot hold ${beyond.join(", ")}.`);
  const token = opts.value ?? `tth_${randomBytes(24).toString("base64url")}`;
  const expiresAt = expiresInDays ? new Date((opts.now ?? new Date()).getTime() + expiresInDays * 86_400_000) : null;
  const record = await db.apiToken.create({
    data: {
      id: newRecordId("tok"),
      name,
      tokenHash: hashToken(token),
      prefix: token.slice(0, 8),
      scopes: JSON.stringify(scopes),
      createdBy: opts.createdBy,
      userId: owner.id,
      expiresAt,
    },
    select: { id: true, name: true, prefix: true, createdAt: true, expiresAt: true },
  });
  return { token, ...record, scopes, user: owner.email };
}

export async function authenticateApiToken(
  db: Db,
  bearer: string,
  now: Date = new Date(),
): Promise<ApiPrincipal | null> {
  // Before any workspace is known: the token names it (asSystem, so a header or cookie the caller sent cannot).
  const row = await asSystem(() =>
    db.apiToken.findUnique({
      where: { tokenHash: hashToken(bearer) },
      include: { user: { select: { id: true, email: true, disabledAt: true } } },
    }),
  );
  if (!row || row.revokedAt || (row.expiresAt && row.expiresAt <= now)) return null;
  const owner = row.user;
  const role =
    owner && !owner.disabledAt ? await asSystem(() => roleIn(db, { userId: owner.id }, row.workspaceId)) : null;
  if (!owner || !role) return null;
  // Best effort: a failed "last used" write must not fail the request.
  await asSystem(() =>
    db.apiToken.update({ where: { id: row.id }, data: { lastUsedAt: now }, select: { id: true } }),
  ).catch(() => {});
  return {
    tokenId: row.id,
    name: row.name,
    scopes: scopesWithinRole(JSON.parse(row.scopes) as ApiScope[], role),
    principal: owner.email,
    workspaceId: row.workspaceId,
  };
}

export type ApiTokenRecord = {
  id: string;
  name: string;
  prefix: string;
  scopes: ApiScope[];
  user: string | null;
  createdBy: string;
  createdAt: Date;
  expiresAt: Date | null;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
};

export async function findApiTokens(db: Db): Promise<ApiTokenRecord[]> {
  const rows = await db.apiToken.findMany({
    orderBy: { createdAt: "desc" },
    omit: { tokenHash: true },
    include: { user: { select: { email: true } } },
  });
  return rows.map(({ user, userId: _userId, scopes, ...row }) => ({
    ...row,
    scopes: JSON.parse(scopes) as ApiScope[],
    user: user?.email ?? null,
  }));
}

export async function revokeApiToken(db: TokenDb, id: string) {
  const { count } = await db.apiToken.updateMany({ where: { id, revokedAt: null }, data: { revokedAt: new Date() } });
  if (count === 0)
    throw new AppError("NOT_FOUND", {
      message: `token ${id} not found or revoked`,
      userMessage: "That token does not exist or is already revoked.",
    });
}
