import { langGraphPreflight } from "@/lib/langgraph/cors";
import { defineLangGraphRoute } from "@/lib/langgraph/route";
import { deploymentInfo } from "@/lib/langgraph/info";

export const dynamic = "force-dynamic";

export const OPTIONS = langGraphPreflight;

/** Public, like LangGraph's: the Agent Inbox checks the deployment URL with it before it has a key. */
export const GET = defineLangGraphRoute({ scope: null }, async () => deploymentInfo());
