import { LoadingRows, Skeleton } from "@/components/ui/loading";

export default function RunLoading() {
  return (
    <>
      <Skeleton className="mb-2 h-4 w-24" />
      <Skeleton className="mb-6 h-7 w-96" />
      <LoadingRows rows={8} label="Loading the run" />
    </>
  );
}
