import { z } from "zod";
import type { ToolDefinition } from "@/lib/runtime";
import type { SandboxClient } from "./http";
import { sandboxEffect } from "./sandbox-tool";

// Drafts: saved for a person to see or finish; changes nothing outside. Idempotent by key.

export const createDraftInputSchema = z.object({
  kind: z.enum(["email", "reply", "note"], { error: 'The kind is "email", "reply" or "note".' }),
  content: z.union([
    z.string().trim().min(1, "The draft is empty."),
    z.record(z.string(), z.unknown()).refine((c) => Object.keys(c).length > 0, "The draft is empty."),
  ]),
});

export const draftSchema = z.object({ draftId: z.string() });
export type Draft = z.infer<typeof draftSchema>;

export function draftTools(client: SandboxClient): ToolDefinition[] {
  const create = sandboxEffect(client, {
    name: "drafts.create",
    description: "Save a draft (email, reply or note) for a person to review. Idempotent by key.",
    capability: "draft",
    semantics: "idempotent",
    input: createDraftInputSchema,
    output: draftSchema,
    impact: ({ kind, content }) => {
      const c = typeof content === "string" ? {} : content;
      const to = typeof c.to === "string" ? ` to ${c.to}` : "";
      const subject = typeof c.subject === "string" ? `: "${c.subject}"` : "";
      return `saves a draft ${kind}${to}${subject}`;
    },
    post: "/drafts",
    receiptId: (d) => d.draftId,
  });
  return [create];
}
