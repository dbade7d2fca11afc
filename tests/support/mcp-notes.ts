import { appendFileSync } from "node:fs";
import { randomUUID } from "node:crypto";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";

// A tiny MCP server for tests: a note store with one tool per kind of behaviour.
//   add          pure computation, answers with structuredContent
//   create_note  an effect; deduplicated by the caller's _meta["tether/idempotencyKey"]; every applied
//                effect is appended to a ledger file (MCP_NOTES_LEDGER) so a test can count them
//   find_note    finds a note by operation id (a lookup tool); empty content when there is none
//   refuse       always answers isError
//   crash        the server process exits without answering (a lost connection mid-call)

export type Note = { noteId: string; title: string; body: string; operationId: string | null };

export function createNotesServer(opts: { ledger?: string; notes?: Map<string, Note> } = {}): McpServer {
  const notes = opts.notes ?? new Map<string, Note>(); // by idempotency key (or note id)
  const server = new McpServer({ name: "notes", version: "1.0.0" });

  server.registerTool(
    "add",
    {
      description: "Add two numbers.",
      inputSchema: { a: z.number(), b: z.number() },
      outputSchema: { sum: z.number() },
    },
    async ({ a, b }) => ({ content: [{ type: "text", text: String(a + b) }], structuredContent: { sum: a + b } }),
  );

  server.registerTool(
    "create_note",
    {
      description: "Create a note. Deduplicated by the idempotency key in _meta.",
      inputSchema: { title: z.string().min(1), body: z.string().optional() },
    },
    async ({ title, body }, extra) => {
      const key =
        typeof extra._meta?.["tether/idempotencyKey"] === "string"
          ? (extra._meta["tether/idempotencyKey"] as string)
          : null;
      const operationId =
        typeof extra._meta?.["tether/operationId"] === "string" ? (extra._meta["tether/operationId"] as string) : null;
      let note = key ? notes.get(key) : undefined;
      if (!note) {
        note = { noteId: `note_${randomUUID().slice(0, 8)}`, title, body: body ?? "", operationId };
        notes.set(key ?? note.noteId, note);
        if (opts.ledger) appendFileSync(opts.ledger, JSON.stringify({ action: "create_note", ...note }) + "\n");
      }
      return { content: [{ type: "text", text: JSON.stringify(note) }] };
    },
  );

  server.registerTool(
    "find_note",
    {
      description: "Find the note an operation created.",
      inputSchema: { operationId: z.string() },
    },
    async ({ operationId }) => {
      const note = [...notes.values()].find((n) => n.operationId === operationId);
      return { content: note ? [{ type: "text", text: JSON.stringify(note) }] : [] };
    },
  );

  server.registerTool(
    "refuse",
    {
      description: "Always refuses.",
      inputSchema: { reason: z.string().optional() },
    },
    async ({ reason }) => ({ isError: true, content: [{ type: "text", text: `refused: ${reason ?? "no reason"}` }] }),
  );

  server.registerTool("crash", { description: "Exits without answering." }, async () => {
    process.exit(3);
  });

  return server;
}
