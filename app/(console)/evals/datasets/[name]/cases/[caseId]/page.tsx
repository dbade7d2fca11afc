import type { Metadata } from "next";
import { ConsoleLink } from "@/components/shell/console-links";
import { notFound } from "next/navigation";
import { CaseExpectations } from "@/components/evals/case-expectations";
import { CaseReviewer } from "@/components/evals/case-reviewer";
import { CaseWorld } from "@/components/evals/case-world";
import { EvalsTabs } from "@/components/evals/evals-tabs";
import { Badge } from "@/components/ui/badge";
import { Card } from "@/components/ui/card";
import { PageHeader } from "@/components/ui/page-header";
import { getDataset } from "@/lib/evals/queries";
import { decodeParam, orNull } from "@/lib/queries/evals";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Eval case" };

export default async function CasePage({ params }: { params: Promise<{ name: string; caseId: string }> }) {
  const { name, caseId } = await params;
  const dataset = await orNull(getDataset(decodeParam(name)));
  const found = dataset?.cases.find((c) => c.caseId === decodeParam(caseId));
  if (!dataset || !found) notFound();
  const { spec } = found;

  return (
    <>
      <PageHeader
        title={spec.title}
        description={
          <span className="flex flex-wrap items-center gap-2">
            <span className="font-mono text-xs">{spec.id}</span> · agent {spec.agent} · case {found.position + 1} of{" "}
            <ConsoleLink
              href={`/evals/datasets/${encodeURIComponent(dataset.name)}`}
              className="text-blue-700 underline"
            >
              {dataset.name}
            </ConsoleLink>
            {spec.tags.map((tag) => (
              <Badge key={tag}>{tag}</Badge>
            ))}
          </span>
        }
      />
      <EvalsTabs active="datasets" />
      <div className="grid items-start gap-4 xl:grid-cols-2">
        <div className="space-y-4">
          <Card title="Input" description="What the agent run is started with.">
            <pre className="max-h-96 overflow-auto rounded bg-zinc-50 p-2 font-mono text-xs text-zinc-800">
              {JSON.stringify(spec.input, null, 2) ?? "undefined"}
            </pre>
          </Card>
          <Card title="World set-up" description="The sandbox systems the agent acts on, as the trial starts them.">
            <CaseWorld world={spec.world} />
          </Card>
          <Card
            title="Scripted reviewer answers"
            description="How the harness answers the run's decision packets, in order."
          >
            <CaseReviewer answers={spec.reviewer} />
          </Card>
        </div>
        <Card title="Expectations" description="What the trial is scored against.">
          <CaseExpectations expect={spec.expect} skipFaults={spec.skipFaults} />
        </Card>
      </div>
    </>
  );
}
