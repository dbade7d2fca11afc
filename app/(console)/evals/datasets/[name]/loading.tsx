import { LoadingRows } from "@/components/ui/loading";

export default function DatasetLoading() {
  return <LoadingRows rows={6} label="Loading the dataset" />;
}
