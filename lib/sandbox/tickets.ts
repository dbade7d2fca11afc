import type { Db } from "@/lib/db";
import { notFound } from "./errors";

// The support desk's tickets: read-only for agents (a reply is a draft, see drafts.ts).

export type Ticket = {
  id: string;
  subject: string;
  body: string;
  status: string;
  customerEmail: string;
  createdAt: string;
};

export async function getTicket(db: Db, id: string): Promise<Ticket> {
  const row = await db.sandboxTicket.findUnique({ where: { id } });
  if (!row) throw notFound("ticket", id);
  return { ...row, createdAt: row.createdAt.toISOString() };
}
