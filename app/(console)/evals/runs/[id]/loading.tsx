import { LoadingRows } from "@/components/ui/loading";

export default function EvalRunLoading() {
  return <LoadingRows rows={8} label="Loading the eval run" />;
}
