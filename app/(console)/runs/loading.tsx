import { LoadingRows } from "@/components/ui/loading";
import { PageHeader } from "@/components/ui/page-header";

export default function RunsLoading() {
  return (
    <>
      <PageHeader title="Runs" description="Every agent run, newest first." />
      <LoadingRows rows={10} label="Loading runs" />
    </>
  );
}
