"use client";
import { useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useState, useTransition } from "react";
import { Button } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { Select } from "@/components/ui/field";
import { assignPacketAction } from "@/lib/actions/packets";
import { describeDecisionError } from "@/lib/inbox/decision-errors";
import { queryKeys } from "@/lib/query-keys";

type AssignmentPanelProps = {
  packetId: string;
  assignee: string | null;
  queue: string;
  me: string;
  deciders: Array<{ email: string; name: string | null }>;
};

/** Claim the packet, hand it to another person who may decide, or give it back to the queue. */
export function AssignmentPanel({ packetId, assignee, queue, me, deciders }: AssignmentPanelProps) {
  const router = useRouter();
  const queryClient = useQueryClient();
  const [isPending, startTransition] = useTransition();
  const [message, setMessage] = useState<{ tone: "ok" | "error"; text: string } | null>(null);
  const [target, setTarget] = useState("");

  function assign(to: string | null) {
    startTransition(async () => {
      const result = await assignPacketAction({ packetId, assignee: to });
      void queryClient.invalidateQueries({ queryKey: queryKeys.packets.all });
      if (result.ok) {
        setMessage({
          tone: "ok",
          text: result.data.assignee
            ? `Assigned to ${result.data.assignee === me ? "you" : result.data.assignee}.`
            : "Unassigned: back in the queue.",
        });
        router.refresh();
      } else {
        const problem = describeDecisionError(result.code, result.message);
        setMessage({
          tone: "error",
          text: problem.kind === "race" ? `${problem.title} ${result.message}` : result.message,
        });
      }
    });
  }

  return (
    <Card title="Assignment" description={`Queue: ${queue}`}>
      <p className="text-sm text-zinc-800">
        {assignee ? (
          <>
            Assigned to <span className="font-medium">{assignee === me ? `you (${me})` : assignee}</span>
          </>
        ) : (
          "Nobody has claimed it yet."
        )}
      </p>
      <div className="mt-3 flex flex-wrap gap-2">
        {assignee !== me && (
          <Button size="sm" variant="primary" isBusy={isPending} onClick={() => assign(me)}>
            Assign to me
          </Button>
        )}
        {assignee && (
          <Button size="sm" isBusy={isPending} onClick={() => assign(null)}>
            Unassign
          </Button>
        )}
      </div>
      <form
        className="mt-3 flex items-end gap-2"
        onSubmit={(event) => {
          event.preventDefault();
          if (target) assign(target);
        }}
      >
        <div className="min-w-0 flex-1">
          <label htmlFor="assign-to" className="mb-1 block text-xs font-medium text-zinc-700">
            Assign to
          </label>
          <Select id="assign-to" value={target} onChange={(e) => setTarget(e.target.value)}>
            <option value="">Choose a reviewer…</option>
            {deciders
              .filter((d) => d.email !== assignee)
              .map((d) => (
                <option key={d.email} value={d.email}>
                  {d.name ? `${d.name} (${d.email})` : d.email}
                </option>
              ))}
          </Select>
        </div>
        <Button type="submit" size="sm" isBusy={isPending} disabled={!target}>
          Assign
        </Button>
      </form>
      {message && (
        <p
          role={message.tone === "error" ? "alert" : "status"}
          className={`mt-2 text-sm ${message.tone === "error" ? "text-red-800" : "text-emerald-800"}`}
        >
          {message.text}
        </p>
      )}
    </Card>
  );
}
