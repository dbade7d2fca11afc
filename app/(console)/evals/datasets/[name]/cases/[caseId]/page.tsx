import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { CaseExpectations } from "@/components/evals/case-expectations";
import { CaseSetup } from "@/components/evals/case-setup";
import { DatasetLink } from "@/components/evals/eval-links";
import { EvalsTabs } from "@/components/evals/evals-tabs";
import { Badge } from "@/components/ui/badge";
import { Card } from "@/components/ui/card";
import { PageHeader } from "@/components/ui/page-header";
import { getDataset } from "@/lib/queries/eval-records";
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
            <DatasetLink name={dataset.name} className="text-blue-700 underline" />
            {spec.tags.map((tag) => (
              <Badge key={tag}>{tag}</Badge>
            ))}
          </span>
        }
      />
      <EvalsTabs active="datasets" />
      <div className="grid items-start gap-4 xl:grid-cols-2">
        <CaseSetup spec={spec} />
        <Card title="Expectations" description="What the trial is scored against.">
          <CaseExpectations expect={spec.expect} skipFaults={spec.skipFaults} />
        </Card>
      </div>
    </>
  );
}
