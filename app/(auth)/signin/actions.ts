"use server";
// The sign-in page's server actions. A successful signIn() redirects (it throws Next's redirect,
// which must not be caught); a failure comes back as a message for the form. What went wrong is
// not said beyond "wrong email or password" — the audit log has the reason.
import { headers } from "next/headers";
import { AuthError } from "next-auth";
import { signIn, signInThrottle } from "@/lib/auth";
import { safeCallbackPath } from "@/lib/auth/config";
import { OIDC_PROVIDER_ID } from "@/lib/auth/oidc";
import { clientAddress, signInLockMessage } from "@/lib/auth/throttle";
import { credentialsSchema, normalizeEmail } from "@/lib/auth/users";

export type SignInState = { error?: string; fieldErrors?: { email?: string; password?: string }; email?: string };

export async function signInWithPasswordAction(_previous: SignInState, form: FormData): Promise<SignInState> {
  const email = String(form.get("email") ?? "");
  const parsed = credentialsSchema.safeParse({ email, password: form.get("password") ?? "" });
  if (!parsed.success) {
    const fieldErrors: SignInState["fieldErrors"] = {};
    for (const issue of parsed.error.issues) fieldErrors[issue.path[0] as "email" | "password"] ??= issue.message;
    return { fieldErrors, email };
  }
  // The same lock Credentials' authorize applies (it sees the same headers), said as what it is.
  const attempt = { email: normalizeEmail(parsed.data.email), address: clientAddress(await headers()) };
  const throttle = signInThrottle();
  const locked = await throttle.lockOf(attempt);
  if (locked) return { error: signInLockMessage(locked), email };
  try {
    await signIn("credentials", { ...parsed.data, redirectTo: safeCallbackPath(form.get("callbackUrl")) });
  } catch (error) {
    if (error instanceof AuthError) {
      if (error.type !== "CredentialsSignin") return { error: "Signing in failed. Try again.", email };
      // This failure may have been the one that locked the account or the address: say so now.
      const lockedNow = await throttle.lockOf(attempt);
      return { error: lockedNow ? signInLockMessage(lockedNow) : "Wrong email or password.", email };
    }
    throw error; // the redirect after a successful sign-in
  }
  return {};
}

export async function signInWithOidcAction(form: FormData): Promise<void> {
  await signIn(OIDC_PROVIDER_ID, { redirectTo: safeCallbackPath(form.get("callbackUrl")) });
}
