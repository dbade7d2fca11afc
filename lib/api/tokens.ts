import { createHash, randomBytes, randomUUID } from "node:crypto";
import { z } from "zod";
import type { Db } from "@/lib/db";
import { AppError, fieldErrorsFromIssues } from "@/lib/runtime/errors";
import { API_SCOPES, type ApiScope } from "./scopes";

// Bearer tokens for the HTTP API. Only a sha256 of the token is stored; the token is shown once.

export type ApiPrincipal = { tokenId: string; name: string; scopes: ApiScope[]; principal: string };

const hash = (token: string) => createHash("sha256").update(token).digest("hex");

export const createApiTokenSchema = z.object({
  name: z.string().trim().min(1).max(100),
  scopes: z.array(z.enum(API_SCOPES)).min(1, "Give the token at least one scope."),
});

export async function createApiToken(db: Db, input: unknown, opts: { createdBy: string; value?: string }) {
  const parsed = createApiTokenSchema.safeParse(input);
  if (!parsed.success) throw new AppError("INVALID_INPUT", { message: "invalid token request", userMessage: "The token request is invalid.", fieldErrors: fieldErrorsFromIssues(parsed.error.issues) });
  const token = opts.value ?? `tth_${randomBytes(24).toString("base64url")}`;
  const record = await db.apiToken.create({
    data: { id: `tok_${randomUUID().replaceAll("-", "")}`, name: parsed.data.name, tokenHash: hash(token), prefix: token.slice(0, 8), scopes: JSON.stringify(parsed.data.scopes), createdBy: opts.createdBy },
    select: { id: true, name: true, prefix: true, createdAt: true },
  });
  return { token, ...record, scopes: parsed.data.scopes };
}

/**
 * TETHER_BOOTSTRAP_TOKEN: an admin token with exactly that value, created once (for scripts and CI).
 * A revoked one stays revoked: revoking is how an admin takes it away, and the next start must not
 * give it back. "revoked" tells the caller to say so.
 */
export async function ensureBootstrapToken(db: Db, value: string): Promise<"created" | "exists" | "revoked"> {
  if (value.length < 16) throw new Error("TETHER_BOOTSTRAP_TOKEN must be at least 16 characters");
  const existing = await db.apiToken.findUnique({ where: { tokenHash: hash(value) }, select: { id: true, revokedAt: true } });
  if (existing) return existing.revokedAt ? "revoked" : "exists";
  await createApiToken(db, { name: "bootstrap", scopes: ["admin"] }, { createdBy: "setup", value });
  return "created";
}

export async function authenticateApiToken(db: Db, bearer: string): Promise<ApiPrincipal | null> {
  const row = await db.apiToken.findUnique({ where: { tokenHash: hash(bearer) } });
  if (!row || row.revokedAt) return null;
  // Best effort: a failed "last used" write must not fail the request.
  await db.apiToken.update({ where: { id: row.id }, data: { lastUsedAt: new Date() }, select: { id: true } }).catch(() => {});
  return { tokenId: row.id, name: row.name, scopes: JSON.parse(row.scopes) as ApiScope[], principal: `token:${row.name}` };
}

export async function findApiTokens(db: Db) {
  const rows = await db.apiToken.findMany({ orderBy: { createdAt: "desc" }, omit: { tokenHash: true } });
  return rows.map((r) => ({ ...r, scopes: JSON.parse(r.scopes) as ApiScope[] }));
}

export async function revokeApiToken(db: Db, id: string) {
  const { count } = await db.apiToken.updateMany({ where: { id, revokedAt: null }, data: { revokedAt: new Date() } });
  if (count === 0) throw new AppError("NOT_FOUND", { message: `token ${id} not found or revoked`, userMessage: "That token does not exist or is already revoked." });
}
