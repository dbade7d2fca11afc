// A decision link's token: `<link id>.<signature>`, where the signature is HMAC-SHA256 over everything the
// link is bound to — the link id, the packet, the person, the packet's action digest and the expiry — keyed
// with a key derived from the server secret (resolveAuthSecret) under its own label, so a session cookie's
// key never signs a link and no new secret needs configuring. The bindings live in the DecisionLink row;
// the token carries only the id, so a link stays short enough for an email or a phone. Verifying recomputes
// the signature from the row: a token that was altered, spliced from two links, or whose row was edited
// fails the same constant-time comparison.
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { resolveAuthSecret } from "@/lib/auth/secret";
import type { Config } from "@/lib/config";

export type LinkBinding = { id: string; packetId: string; userId: string; digest: string; expiresAt: Date };

const KEY_LABEL = "tether/decision-links/v1";
const TOKEN = /^(dl_[0-9a-f]{32})\.([A-Za-z0-9_-]{43})$/;

/** The links' signing key: HMAC(server secret, label). */
export function decisionLinkKey(config?: Config): Buffer {
  return createHmac("sha256", resolveAuthSecret(config)).update(KEY_LABEL).digest();
}

export const newLinkId = () => `dl_${randomBytes(16).toString("hex")}`;

function signature(key: Buffer, link: LinkBinding): Buffer {
  return createHmac("sha256", key)
    .update([link.id, link.packetId, link.userId, link.digest, link.expiresAt.getTime()].join("\n"))
    .digest();
}

export const linkToken = (key: Buffer, link: LinkBinding) => `${link.id}.${signature(key, link).toString("base64url")}`;

/** The link id and signature of a well-formed token; null for anything else. */
export function parseLinkToken(token: string): { id: string; signature: Buffer } | null {
  const match = TOKEN.exec(token);
  return match ? { id: match[1], signature: Buffer.from(match[2], "base64url") } : null;
}

/** Whether the token's signature is the one this row's bindings produce (constant time). */
export function isSignedFor(key: Buffer, link: LinkBinding, given: Buffer): boolean {
  const expected = signature(key, link);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
