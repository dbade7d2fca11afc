import type { Metadata } from "next";
import { ConsoleLink } from "@/components/shell/console-links";
import { notFound } from "next/navigation";
import { ArgsList } from "@/components/inbox/args-list";
import { AssignmentPanel } from "@/components/inbox/assignment-panel";
import { DecisionPanel } from "@/components/inbox/decision-panel";
import { PacketEvidence } from "@/components/inbox/packet-evidence";
import { PacketLiveStatus } from "@/components/inbox/packet-live-status";
import { PacketSummary } from "@/components/inbox/packet-summary";
import { StaleChanges } from "@/components/inbox/stale-changes";
import { AccessDenied } from "@/components/shell/access-denied";
import { Card } from "@/components/ui/card";
import { JsonView } from "@/components/ui/json-view";
import { PageHeader } from "@/components/ui/page-header";
import { can } from "@/lib/auth/rbac";
import { requirePageScope } from "@/lib/auth/session";
import { impactReason } from "@/lib/runtime/impact";
import { whyNotConsoleDecider } from "@/lib/queries/console-pages";
import { findDeciders, getPacketView } from "@/lib/queries/packets";
import { firstParam, type SearchParams } from "@/lib/queries/search-params";
import { decisionOptions, type DecisionKind } from "@/lib/runtime/types";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Decision packet" };

type PacketPageProps = { params: Promise<{ id: string }>; searchParams: Promise<SearchParams> };
const DECISIONS: DecisionKind[] = ["approve", "edit", "reject", "redirect", "happened", "retry", "skip"];

export default async function PacketPage({ params, searchParams }: PacketPageProps) {
  const [{ id }, query, { user, isAllowed }] = await Promise.all([
    params,
    searchParams,
    requirePageScope("packets:read"),
  ]);
  if (!isAllowed) return <AccessDenied role={user.role} scope="packets:read" />;
  const canDecide = can(user.role, "packets:decide");
  const [view, deciders] = await Promise.all([getPacketView(id), canDecide ? findDeciders() : Promise.resolve([])]);
  if (!view) notFound();
  const { packet, traits, impactLevel, argsSchema, canLookUp, run } = view;
  const whyNot = canDecide ? await whyNotConsoleDecider(user.email, packet) : null;
  const reason = impactReason(packet.tool, traits, packet.kind);
  const now = new Date();
  const isOpen = packet.status === "PENDING";

  return (
    <>
      <PageHeader
        title={<span className="font-mono">{packet.tool}</span>}
        description={
          <>
            <ConsoleLink href="/inbox" className="text-blue-700 underline">
              Inbox
            </ConsoleLink>{" "}
            / <span className="font-mono">{packet.id}</span>
          </>
        }
      />
      <PacketLiveStatus
        packetId={packet.id}
        initial={{ status: packet.status, approvers: packet.approvers, assignee: packet.assignee, queue: packet.queue }}
      />
      <div className="grid items-start gap-4 xl:grid-cols-[minmax(0,1fr)_24rem]">
        <div className="space-y-4">
          <PacketSummary
            packet={packet}
            now={now}
            traits={traits}
            impactLevel={impactLevel}
            impactReason={reason}
            run={run}
          />
          {packet.status === "STALE" && packet.content.staleChanges && (
            <StaleChanges changes={packet.content.staleChanges} />
          )}
          <Card
            title="Arguments"
            description={
              packet.kind === "UNKNOWN_OUTCOME"
                ? "What the call that may have happened was made with."
                : "Exactly what the tool will be called with if you approve."
            }
          >
            <ArgsList args={packet.args} />
          </Card>
          <PacketEvidence packet={packet} />
          {packet.decision && (
            <Card title="Decision">
              <JsonView
                value={packet.decision}
                label={`${packet.decision.decision} by ${packet.decidedBy ?? "unknown"}`}
              />
            </Card>
          )}
        </div>
        <div className="space-y-4">
          <DecisionPanel
            packetId={packet.id}
            status={packet.status}
            decidedBy={packet.decidedBy}
            options={decisionOptions(packet)}
            tool={packet.tool}
            canLookUp={canLookUp}
            impact={packet.content.impact}
            proposedArgs={packet.args}
            argsSchema={argsSchema}
            isHighImpact={impactLevel === "high"}
            impactReason={reason}
            approvers={packet.approvers}
            requiredApprovals={packet.requiredApprovals}
            me={user.email}
            canDecide={canDecide && !whyNot}
            whyNotDecider={whyNot}
            initialDecision={DECISIONS.find((d) => d === firstParam(query.decide))}
          />
          {isOpen && canDecide && !whyNot && (
            <AssignmentPanel
              packetId={packet.id}
              assignee={packet.assignee}
              queue={packet.queue}
              me={user.email}
              deciders={deciders.map(({ email, name }) => ({ email, name }))}
            />
          )}
        </div>
      </div>
    </>
  );
}
