import { formatDuration, parseExpiryPolicy } from "@/lib/runtime/expiry";

/** What an onExpire text does, step by step, as the admin types it: "→ leads (2h) → cfo (1d) → rejected". */
export function ExpiryChain({ text, id }: { text: string; id?: string }) {
  const parsed = parseExpiryPolicy(text);
  if (!parsed.ok) return null; // the field's error says why once saved
  const { policy } = parsed;
  const steps =
    policy.kind === "reject"
      ? ["rejected"]
      : policy.kind === "approve"
        ? ["approved by the expiry (system:expiry)"]
        : [
            ...policy.chain.map(
              (s) => `${s.queue} (${s.windowMs === null ? "same window" : formatDuration(s.windowMs)})`,
            ),
            "rejected",
          ];
  return (
    <p id={id} className="text-xs text-zinc-600" aria-live="polite">
      On expiry: {steps.join(" → ")}
    </p>
  );
}
