import { z } from "zod";
import { THREAD_STATUSES } from "./thread-status";

// The request bodies of the LangGraph routes, as @langchain/langgraph-sdk's Client sends them. Filters and
// options Tether cannot honour are refused (400 naming the field) rather than ignored.

const unsupported = (what: string) =>
  z.null({ error: `${what} is not supported by Tether's LangGraph API.` }).optional();

export const searchThreadsBody = z.object({
  offset: z.number().int().min(0).max(1_000_000).default(0),
  limit: z.number().int().min(1).max(100, "At most 100 threads a page.").default(10),
  status: z.enum(THREAD_STATUSES).optional().nullable(),
  metadata: z
    .strictObject(
      { graph_id: z.string().min(1).max(200).optional(), assistant_id: z.string().min(1).max(200).optional() },
      { error: "Filter on metadata.graph_id (or assistant_id) only." },
    )
    .optional()
    .nullable(),
  ids: z.array(z.string().min(1).max(200)).max(100).optional().nullable(),
  sort_by: z.enum(["thread_id", "created_at", "updated_at", "state_updated_at"]).optional().nullable(),
  sort_order: z.enum(["asc", "desc"]).optional().nullable(),
  values: unsupported("Filtering on values"),
  extract: unsupported("extract"),
  select: z.array(z.string()).optional().nullable(), // every field is returned
});

export const runOnThreadBody = z
  .object({
    assistant_id: z.string().min(1).max(200).optional().nullable(),
    input: z
      .null({ error: "A thread is a Tether run: it takes no new input. Start runs with POST /api/runs." })
      .optional(),
    command: z.object(
      {
        resume: z
          .unknown()
          .refine(
            (value) => value !== undefined && value !== null,
            "Send command.resume: the response to the thread's interrupt.",
          ),
        update: unsupported("command.update"),
        goto: unsupported("command.goto"),
      },
      { error: "Send command: {resume: ...}." },
    ),
    stream_mode: z
      .union([z.string(), z.array(z.string())])
      .optional()
      .nullable(),
  })
  .passthrough();

export const updateStateBody = z.object({
  values: z
    .null({
      error:
        'Tether does not let a client write a run\'s state: only a dismissal (values: null, as_node: "__end__") is supported.',
    })
    .optional(),
  as_node: z
    .literal("__end__", { error: 'Only as_node "__end__" (dismiss the thread\'s interrupts) is supported.' })
    .optional()
    .nullable(),
  checkpoint: z.unknown().optional(),
  checkpoint_id: z.unknown().optional(),
});
