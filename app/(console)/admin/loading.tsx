import { LoadingRows } from "@/components/ui/loading";
import { Skeleton } from "@/components/ui/loading";

// Shown while an admin page's server data loads.
export default function AdminLoading() {
  return (
    <>
      <Skeleton className="mb-6 h-7 w-48" />
      <LoadingRows rows={8} label="Loading" />
    </>
  );
}
