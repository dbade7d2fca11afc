// A packet's deadline as a reviewer reads it: "expires in 1 h 12 min", then "expired", and what its
// expiry policy does then. Pure: the countdown component renders it every tick of the shared clock.

const UNITS: Array<[number, string]> = [
  [86_400_000, "d"],
  [3_600_000, "h"],
  [60_000, "min"],
  [1_000, "s"],
];

/** "expires in 1 h 12 min" (the two largest units, rounded down), "expires in 45 s", "expired". */
export function describeCountdown(expiresAt: Date | string, now: Date): string {
  const ms = new Date(expiresAt).getTime() - now.getTime();
  if (ms <= 0) return "expired";
  const first = Math.max(
    0,
    UNITS.findIndex(([size]) => ms >= size),
  );
  const parts = UNITS.slice(first, first + 2)
    .map(([size, unit], i) => [Math.floor((i === 0 ? ms : ms % UNITS[first][0]) / size), unit] as const)
    .filter(([amount]) => amount > 0)
    .map(([amount, unit]) => `${amount} ${unit}`);
  return `expires in ${parts.length ? parts.join(" ") : "1 s"}`;
}

/** What the packet's expiry policy does: "rejected", "escalates to oncall", "approved" (an onExpire of the gate's rule). */
export function describeOnExpire(onExpire: string): string {
  if (onExpire === "reject") return "then it is rejected";
  if (onExpire === "approve") return "then it is approved";
  if (onExpire.startsWith("escalate:"))
    return `then it escalates to ${onExpire.slice("escalate:".length).split(",").join(", then ")}`;
  return `then: ${onExpire}`;
}
