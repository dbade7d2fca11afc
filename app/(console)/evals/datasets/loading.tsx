import { LoadingRows } from "@/components/ui/loading";

export default function DatasetsLoading() {
  return <LoadingRows rows={5} label="Loading datasets" />;
}
