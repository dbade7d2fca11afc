import { Badge } from "./badge";

/** Short labels (tags, scopes) as grey badges that wrap onto more lines when the cell is narrow. */
export function BadgeList({ labels }: { labels: readonly string[] }) {
  return (
    <span className="flex flex-wrap gap-1">
      {labels.map((label) => (
        <Badge key={label}>{label}</Badge>
      ))}
    </span>
  );
}
