import { ConsoleLink } from "@/components/shell/console-links";
import { Badge } from "@/components/ui/badge";
import { Card } from "@/components/ui/card";
import { DataTable, type Column } from "@/components/ui/data-table";
import { Timestamp } from "@/components/ui/timestamp";
import type { AgentView, AgentVersionView } from "@/lib/queries/agents";
import { ReplayVersionButton } from "./replay-version-button";
import { UpgradeVersionButton } from "./upgrade-version-button";

/** One agent: what it is, and every version with its label, instructions, model, tools, plan and runs (those not ended by what they do). */
export function AgentCard({ agent }: { agent: AgentView }) {
  const runsHref = `/runs?agent=${encodeURIComponent(agent.slug)}`;
  return (
    <Card
      title={
        <span id={`agent-${agent.slug}`}>
          {agent.name} <code className="ml-1 font-mono text-xs font-normal text-zinc-500">{agent.slug}</code>
        </span>
      }
      description={agent.description}
      actions={
        <ConsoleLink href={runsHref} className="whitespace-nowrap text-sm text-blue-700 hover:underline">
          {agent.totalRuns} run{agent.totalRuns === 1 ? "" : "s"}
        </ConsoleLink>
      }
    >
      <DataTable
        columns={versionColumns(agent)}
        rows={agent.versions}
        rowKey={(v) => v.version}
        caption={`Versions of ${agent.slug}`}
      />
      {agent.versions.length === 0 && (
        <p className="mt-2 text-sm text-zinc-500">No version recorded yet: it is recorded when the console starts.</p>
      )}
    </Card>
  );
}

function versionColumns(agent: AgentView): Column<AgentVersionView>[] {
  const { slug } = agent;
  const newest = agent.versions.find((n) => n.isCurrent);
  const isDeployed = agent.currentVersion !== null;
  return [
    { header: "Version", cell: (v) => <VersionCell version={v} /> },
    {
      header: "Model",
      cell: (v) =>
        v.model ? (
          <code className="font-mono text-xs">{v.model}</code>
        ) : (
          <span className="text-xs text-zinc-500">{v.instructions ? "scripted policy" : "—"}</span>
        ),
    },
    {
      header: "Tools",
      cell: (v) => (
        <ul className="space-y-0.5">
          {v.tools.map((t) => (
            <li key={t} className="font-mono text-xs">
              {t}
            </li>
          ))}
        </ul>
      ),
    },
    {
      header: "Plan",
      cell: (v) => (
        <ol className="list-decimal space-y-0.5 pl-4 text-xs">
          {v.plan.map((p) => (
            <li key={p.id}>{p.title}</li>
          ))}
        </ol>
      ),
    },
    { header: "First seen", cell: (v) => <Timestamp value={v.firstSeenAt} /> },
    {
      header: "Runs",
      cell: (v) => (
        <>
          <ConsoleLink
            href={`/runs?agent=${encodeURIComponent(slug)}&version=${encodeURIComponent(v.version)}`}
            className="text-blue-700 hover:underline"
            aria-label={`${v.runCount} runs of ${slug} ${v.version}`}
          >
            {v.runCount}
          </ConsoleLink>
          {/* Its recorded runs, re-driven through the code deployed now: what would this code have done on them? */}
          {isDeployed && v.runCount > 0 && <ReplayVersionButton slug={slug} version={v.version} versionName={v.name} />}
        </>
      ),
    },
    {
      header: "Not ended",
      cell: (v) => (
        <>
          <span
            className="whitespace-nowrap text-xs"
            aria-label={`${slug} ${v.version}: ${v.runs.active} active, ${v.runs.waiting} waiting, ${v.runs.parked} parked`}
          >
            {v.runs.active} active · {v.runs.waiting} waiting · {v.runs.parked} parked
          </span>
          {/* Mounted for every older version (no button while it has no runs to move), so what an upgrade did stays on the page after it refreshes. */}
          {!v.isCurrent && newest && (
            <UpgradeVersionButton
              slug={slug}
              version={v.version}
              versionName={v.name}
              newestName={newest.name}
              runs={v.runs.active + v.runs.waiting + v.runs.parked}
            />
          )}
        </>
      ),
    },
  ];
}

/** The version, its label, whether this console runs it, and its instructions. */
function VersionCell({ version: v }: { version: AgentVersionView }) {
  return (
    <>
      <span className="font-mono text-xs">{v.version}</span>
      {v.label && <span className="ml-1 text-xs text-zinc-600">({v.label})</span>}
      {v.isCurrent ? (
        <span className="ml-1">
          <Badge tone="green">newest</Badge>
        </span>
      ) : v.loaded ? (
        <span className="ml-1">
          <Badge tone="blue">loaded</Badge>
        </span>
      ) : (
        <span className="ml-1">
          <Badge tone="gray">not loaded</Badge>
        </span>
      )}
      {v.instructions ? (
        <details className="mt-1">
          <summary className="cursor-pointer text-xs text-blue-700">Instructions</summary>
          <pre className="mt-1 max-w-xl whitespace-pre-wrap rounded bg-zinc-50 p-2 text-xs text-zinc-800">
            {v.instructions}
          </pre>
        </details>
      ) : (
        <span className="block text-xs text-zinc-500">Not recorded (ran before versions were kept)</span>
      )}
    </>
  );
}
