import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { ROLE_LABELS } from "@/lib/auth/rbac";
import { safeCallbackPath } from "@/lib/auth/config";
import { DEMO_PASSWORD, isDemoMode } from "@/lib/auth/mode";
import { oidcButtonName } from "@/lib/auth/oidc";
import { getCurrentUser } from "@/lib/auth/session";
import { findSignInAccounts } from "@/lib/queries/console-pages";
import { signInWithOidcAction } from "./actions";
import { SignInForm } from "./sign-in-form";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Sign in" };

// Errors Auth.js redirects here with (?error=…), in words a person can act on.
const AUTH_ERRORS: Record<string, string> = {
  AccessDenied: "Your account may not sign in here. Ask an admin to add or enable it.",
  Configuration: "Sign-in is misconfigured on the server. Ask an admin to check the server log.",
  OAuthCallbackError: "The single sign-on provider did not complete the sign-in. Try again.",
  OAuthSignInError: "The single sign-on provider could not be reached. Try again.",
  CallbackRouteError: "The single sign-on provider did not complete the sign-in. Try again.",
};

type Props = { searchParams: Promise<{ callbackUrl?: string | string[]; error?: string | string[] }> };

export default async function SignInPage({ searchParams }: Props) {
  const params = await searchParams;
  const callbackUrl = safeCallbackPath(Array.isArray(params.callbackUrl) ? params.callbackUrl[0] : params.callbackUrl);
  if (await getCurrentUser()) redirect(callbackUrl);

  const { demoAccounts, hasNoUsers } = await findSignInAccounts({ withDemoAccounts: isDemoMode() });
  const oidcName = oidcButtonName();
  const errorKey = Array.isArray(params.error) ? params.error[0] : params.error;
  const authError = errorKey ? (AUTH_ERRORS[errorKey] ?? "Signing in failed. Try again.") : undefined;

  return (
    <>
      <div className="mb-6 text-center">
        <p className="text-lg font-semibold tracking-tight text-zinc-900">Tether</p>
        <p className="text-xs text-zinc-500">durable agent runtime</p>
      </div>
      <section aria-labelledby="signin-heading" className="rounded-lg border border-zinc-200 bg-white p-6 shadow-xs">
        <h1 id="signin-heading" className="text-base font-semibold text-zinc-900">
          Sign in to the console
        </h1>
        {authError && (
          <p role="alert" className="mt-3 rounded-md border border-red-200 bg-red-50 px-3 py-2 text-sm text-red-800">
            {authError}
          </p>
        )}
        <SignInForm
          callbackUrl={callbackUrl}
          demoAccounts={demoAccounts.map((a) => ({ ...a, roleLabel: ROLE_LABELS[a.role] }))}
          demoPassword={DEMO_PASSWORD}
        />
        {oidcName && (
          <form action={signInWithOidcAction} className="mt-4 border-t border-zinc-100 pt-4">
            <input type="hidden" name="callbackUrl" value={callbackUrl} />
            <button
              type="submit"
              className="w-full rounded-md border border-zinc-300 bg-white px-3 py-2 text-sm font-medium text-zinc-800 hover:bg-zinc-50 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-blue-600"
            >
              Sign in with {oidcName}
            </button>
          </form>
        )}
      </section>
      {hasNoUsers && (
        <section
          aria-labelledby="first-admin-heading"
          className="mt-4 rounded-lg border border-amber-200 bg-amber-50 p-4 text-sm text-amber-900"
        >
          <h2 id="first-admin-heading" className="font-medium">
            No account exists yet
          </h2>
          <p className="mt-1">Create the first admin on the server, in the console&apos;s folder:</p>
          <pre className="mt-2 overflow-x-auto rounded bg-white/70 px-2 py-1.5 font-mono text-xs">
            npx tether create-admin --email you@example.com --password &apos;…&apos;
          </pre>
        </section>
      )}
    </>
  );
}
