import { LoadingRows } from "@/components/ui/loading";

export default function EvalsLoading() {
  return <LoadingRows rows={8} label="Loading evals" />;
}
