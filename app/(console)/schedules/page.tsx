import type { Metadata } from "next";
import { FiresTable } from "@/components/schedules/fires-table";
import { SchedulesTable } from "@/components/schedules/schedules-table";
import { AccessDenied } from "@/components/shell/access-denied";
import { PageHeader } from "@/components/ui/page-header";
import { TitledSection } from "@/components/ui/titled-section";
import { requirePageScope } from "@/lib/auth/session";
import { findConsoleScheduleFires, findConsoleSchedules } from "@/lib/queries/console-pages";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Schedules" };

export default async function SchedulesPage() {
  const { user, isAllowed } = await requirePageScope("runs:read");
  if (!isAllowed) return <AccessDenied role={user.role} scope="runs:read" />;
  const [schedules, fires] = await Promise.all([findConsoleSchedules(), findConsoleScheduleFires()]);
  return (
    <>
      <PageHeader
        title="Schedules"
        description="Runs started on a cron expression. Each tick fires once, however many workers run."
      />
      <SchedulesTable schedules={schedules} now={new Date()} />
      <TitledSection headingId="fires-title" title="Recent fires" className="mt-8">
        <FiresTable fires={fires} />
      </TitledSection>
    </>
  );
}
