import { langGraphPreflight } from "@/lib/langgraph/cors";
import { presentResumeRun } from "@/lib/langgraph/present";
import { defineResumeRoute } from "@/lib/langgraph/resume-route";

export const dynamic = "force-dynamic";

export const OPTIONS = langGraphPreflight;

/** Resume with command.resume (lib/langgraph/resume.ts): the thread's packets are decided; the worker continues the run. */
export const POST = defineResumeRoute(({ view, decided }) => presentResumeRun(view.run, decided));
