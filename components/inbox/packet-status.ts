// What the packet page's live status poll returns (GET /api/console/packets/:id).
export type PacketStatusSnapshot = {
  id: string;
  status: string;
  decidedBy: string | null;
  decidedAt: string | null;
  approvers: string[];
  requiredApprovals: number;
  assignee: string | null;
  queue: string;
  expiresAt: string | null;
  staleChanges: Array<{ key: string; before: unknown; after: unknown }> | null;
};
