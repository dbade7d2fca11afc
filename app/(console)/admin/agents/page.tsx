import type { Metadata } from "next";
import { defineAdminPage } from "@/components/admin/admin-page";
import { AgentCard } from "@/components/admin/agents/agent-card";
import { EmptyState } from "@/components/ui/empty-state";
import { findAgentsWithVersions } from "@/lib/queries/agents";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Agents" };

export default defineAdminPage(
  {
    title: "Agents",
    description:
      "Every agent and each version it ran with. A run keeps the version it started with, so its decisions can be read against the instructions that shaped them.",
  },
  async () => {
    const agents = await findAgentsWithVersions();
    return agents.length === 0 ? (
      <EmptyState title="No agents">
        Agents are defined in code (lib/agents); they appear here when the console starts.
      </EmptyState>
    ) : (
      <div className="space-y-6">
        {agents.map((agent) => (
          <AgentCard key={agent.slug} agent={agent} />
        ))}
      </div>
    );
  },
);
