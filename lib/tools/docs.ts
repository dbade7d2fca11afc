import { z } from "zod";
import type { ToolDefinition } from "@/lib/runtime";
import type { SandboxClient } from "./http";
import { sandboxRead } from "./sandbox-tool";

// The knowledge base: search only.

export const searchDocsInputSchema = z.object({
  query: z
    .string()
    .trim()
    .min(2, "Search for at least two characters.")
    .max(200, "Keep the query under 200 characters."),
});

export const docSchema = z.object({ id: z.string(), title: z.string(), body: z.string(), updatedAt: z.string() });
export type Doc = z.infer<typeof docSchema>;
export const docSearchSchema = z.object({ docs: z.array(docSchema) });
export type DocSearch = z.infer<typeof docSearchSchema>;

export function docTools(client: SandboxClient): ToolDefinition[] {
  const search = sandboxRead(client, {
    name: "docs.search",
    description:
      "Search the knowledge base: documents whose title or body contains the query (a word or phrase), with their last update time.",
    input: searchDocsInputSchema,
    output: docSearchSchema,
    freshnessMs: 60 * 60_000,
    impact: ({ query }) => `searches the docs for "${query}"`,
    get: ({ query }) => `/docs?query=${encodeURIComponent(query)}`,
  });
  return [search];
}
