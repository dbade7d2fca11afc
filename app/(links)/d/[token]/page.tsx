import type { Metadata } from "next";
import { LinkDecisionForms } from "@/components/decision-link/link-decision-forms";
import { LinkPacket } from "@/components/decision-link/link-packet";
import { LinkStatus, outcomeNotice } from "@/components/decision-link/link-status";
import { decisionLinkDeps } from "@/lib/decision-links/console-deps";
import { openDecisionLink } from "@/lib/decision-links/open-decision-link";

// A decision link, opened from an email or a chat without signing in (proxy.ts lets /d/* through). Reading
// it never decides: the forms POST the token to /api/decision-links. The token sits in the URL, so the page
// sends no Referer and asks not to be indexed.

export const dynamic = "force-dynamic";
export const metadata: Metadata = {
  title: "Decision",
  referrer: "no-referrer",
  robots: { index: false, follow: false },
};

type Props = { params: Promise<{ token: string }>; searchParams: Promise<{ outcome?: string; choice?: string }> };

export default async function DecisionLinkPage({ params, searchParams }: Props) {
  const [{ token }, { outcome, choice }] = await Promise.all([params, searchParams]);
  const link = await openDecisionLink(decisionLinkDeps(), token);
  const notice = outcome ? outcomeNotice(outcome) : null;
  if (link.state !== "open") return <LinkStatus link={link} notice={notice} />;
  return (
    <>
      <h1 className="text-lg font-semibold text-zinc-900">Decide as {link.person.name ?? link.person.email}</h1>
      {notice}
      <LinkPacket packet={link.packet} expiresAt={link.expiresAt} />
      <LinkDecisionForms token={token} choices={link.choices} preferred={choice} />
    </>
  );
}
