import type { Metadata } from "next";
import { PacketCard } from "@/components/inbox/packet-card";
import { EmptyState } from "@/components/ui/empty-state";
import { PageHeader } from "@/components/ui/page-header";
import { findInboxPackets } from "@/lib/queries/packets";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Inbox" };

export default async function InboxPage() {
  const packets = await findInboxPackets();
  const now = new Date();
  return (
    <>
      <PageHeader
        title="Inbox"
        description="Decision packets waiting for a person, the most urgent first."
      />
      {packets.length === 0 ? (
        <EmptyState title="Nothing to decide">When an agent needs approval for an action, its decision packet appears here.</EmptyState>
      ) : (
        <div className="space-y-3">
          {packets.map((packet) => (
            <PacketCard key={packet.id} packet={packet} now={now} />
          ))}
        </div>
      )}
    </>
  );
}
