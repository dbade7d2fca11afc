import { redirect } from "next/navigation";
import { requirePageUser } from "@/lib/auth/session";

// Where the console opens: a reviewer's work is the inbox; operators and admins start from the runs.
export default async function Home() {
  const user = await requirePageUser();
  redirect(user.role === "reviewer" ? "/inbox" : "/runs");
}
