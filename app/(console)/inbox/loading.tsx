import { LoadingRows } from "@/components/ui/loading";

// The inbox, a packet and the history load behind this skeleton.
export default function InboxLoading() {
  return <LoadingRows label="Loading" />;
}
