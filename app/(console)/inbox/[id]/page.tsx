import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { DecisionPanel } from "@/components/inbox/decision-panel";
import { PacketEvidence } from "@/components/inbox/packet-evidence";
import { PacketSummary } from "@/components/inbox/packet-summary";
import { AccessDenied } from "@/components/shell/access-denied";
import { Card } from "@/components/ui/card";
import { JsonView } from "@/components/ui/json-view";
import { PageHeader } from "@/components/ui/page-header";
import { can } from "@/lib/auth/rbac";
import { requirePageScope } from "@/lib/auth/session";
import { findPacket } from "@/lib/queries/packets";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Decision packet" };

type PacketPageProps = { params: Promise<{ id: string }> };

export default async function PacketPage({ params }: PacketPageProps) {
  const [{ id }, { user, isAllowed }] = await Promise.all([params, requirePageScope("packets:read")]);
  if (!isAllowed) return <AccessDenied role={user.role} scope="packets:read" />;
  const packet = await findPacket(id);
  if (!packet) notFound();
  const now = new Date();

  return (
    <>
      <PageHeader
        title={<span className="font-mono">{packet.tool}</span>}
        description={
          <>
            <Link href="/inbox" className="text-blue-700 hover:underline">
              Inbox
            </Link>{" "}
            / <span className="font-mono">{packet.id}</span>
          </>
        }
      />
      <div className="grid items-start gap-4 xl:grid-cols-[minmax(0,1fr)_22rem]">
        <div className="space-y-4">
          <PacketSummary packet={packet} now={now} />
          <Card title="Arguments" description="Exactly what the tool will be called with if you approve.">
            <pre aria-label="Proposed arguments" className="max-h-96 overflow-auto rounded bg-zinc-50 p-2 font-mono text-xs text-zinc-800">
              {JSON.stringify(packet.args, null, 2)}
            </pre>
          </Card>
          <PacketEvidence packet={packet} />
          {packet.decision && (
            <Card title="Decision">
              <JsonView value={packet.decision} label={`${packet.decision.decision} by ${packet.decidedBy ?? "unknown"}`} />
            </Card>
          )}
        </div>
        <DecisionPanel
          packetId={packet.id}
          status={packet.status}
          options={packet.content.options}
          proposedArgs={JSON.stringify(packet.args, null, 2)}
          canDecide={can(user.role, "packets:decide")}
        />
      </div>
    </>
  );
}
