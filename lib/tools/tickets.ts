import { z } from "zod";
import type { ToolDefinition } from "@/lib/runtime";
import { seg, type SandboxClient } from "./http";
import { sandboxRead } from "./sandbox-tool";

// The support desk: read a ticket.

export const getTicketInputSchema = z.object({
  ticketId: z.string().trim().min(1, "Give the ticket id, e.g. tkt_2001."),
});

export const ticketSchema = z.object({
  id: z.string(),
  subject: z.string(),
  body: z.string(),
  status: z.string(),
  customerEmail: z.string(),
});
export type Ticket = z.infer<typeof ticketSchema>;

export function ticketTools(client: SandboxClient): ToolDefinition[] {
  const get = sandboxRead(client, {
    name: "tickets.get",
    description: "Read a support ticket: subject, body, status and the customer who opened it.",
    input: getTicketInputSchema,
    output: ticketSchema,
    freshnessMs: 10 * 60_000,
    impact: ({ ticketId }) => `reads ticket ${ticketId}`,
    get: ({ ticketId }) => `/tickets/${seg(ticketId)}`,
  });
  return [get];
}
