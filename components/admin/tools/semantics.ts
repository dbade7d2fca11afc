import type { BadgeTone } from "@/components/ui/badge";

// What each effect semantics promises after a crash (docs/design.md), in words an admin can check.
export const SEMANTICS_INFO: Record<string, { tone: BadgeTone; meaning: string }> = {
  "pure-read": { tone: "gray", meaning: "changes nothing: safe to repeat" },
  idempotent: { tone: "green", meaning: "takes an idempotency key: a retry with the same key changes nothing new" },
  reconcilable: { tone: "sky", meaning: "has a lookup: a previous attempt is looked up before any retry" },
  unsafe: {
    tone: "red",
    meaning:
      "no key, never repeated on its own: an unknown outcome goes to a person (a lookup, if any, serves their Check now)",
  },
};

export const CAPABILITY_INFO: Record<string, string> = {
  read: "reads the world",
  draft: "prepares something a person or another step sends",
  approve: "approves on someone's behalf",
  execute: "changes the world",
};
