import { randomBytes } from "node:crypto";

/**
 * `re_mi4x2k9c0a1b2c3d4e5f`: a prefix like the real systems use, then the time in base 36 (so ids made
 * later sort later, which keeps ledger order stable within a millisecond) and 10 random hex digits.
 */
export function newId(prefix: string): string {
  return `${prefix}_${Date.now().toString(36).padStart(9, "0")}${randomBytes(5).toString("hex")}`;
}
