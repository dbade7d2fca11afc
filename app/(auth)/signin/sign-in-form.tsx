"use client";

import { useActionState, useRef } from "react";
import { signInWithPasswordAction, type SignInState } from "./actions";
import { SignInField } from "./sign-in-field";

type DemoAccount = { email: string; role: string; roleLabel: string };
type Props = { callbackUrl: string; demoAccounts: DemoAccount[]; demoPassword: string };

export function SignInForm({ callbackUrl, demoAccounts, demoPassword }: Props) {
  const [state, formAction, isPending] = useActionState<SignInState, FormData>(signInWithPasswordAction, {});
  const emailRef = useRef<HTMLInputElement>(null);
  const passwordRef = useRef<HTMLInputElement>(null);

  const fillDemoAccount = (email: string) => {
    if (emailRef.current) emailRef.current.value = email;
    if (passwordRef.current) passwordRef.current.value = demoPassword;
    passwordRef.current?.focus();
  };

  return (
    <>
      <form action={formAction} className="mt-4 space-y-4" noValidate>
        <input type="hidden" name="callbackUrl" value={callbackUrl} />
        {state.error && (
          <p
            role="alert"
            id="signin-error"
            className="rounded-md border border-red-200 bg-red-50 px-3 py-2 text-sm text-red-800"
          >
            {state.error}
          </p>
        )}
        <SignInField
          ref={emailRef}
          id="email"
          label="Email"
          type="email"
          autoComplete="username"
          required
          defaultValue={state.email}
          error={state.fieldErrors?.email}
        />
        <SignInField
          ref={passwordRef}
          id="password"
          label="Password"
          type="password"
          autoComplete="current-password"
          required
          error={state.fieldErrors?.password}
        />
        <button
          type="submit"
          disabled={isPending}
          className="w-full rounded-md bg-zinc-900 px-3 py-2 text-sm font-medium text-white hover:bg-zinc-700 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-blue-600 disabled:cursor-wait disabled:opacity-70"
        >
          {isPending ? "Signing in…" : "Sign in"}
        </button>
      </form>
      {demoAccounts.length > 0 && (
        <section aria-labelledby="demo-heading" className="mt-5 border-t border-zinc-100 pt-4">
          <h2 id="demo-heading" className="text-sm font-medium text-zinc-800">
            Demo accounts
          </h2>
          <p className="mt-0.5 text-xs text-zinc-500">
            Password for each: <code className="rounded bg-zinc-100 px-1 font-mono text-zinc-800">{demoPassword}</code>
          </p>
          <ul className="mt-2 divide-y divide-zinc-100 rounded-md border border-zinc-200">
            {demoAccounts.map((account) => (
              <li key={account.email} className="flex items-center justify-between gap-3 px-3 py-2 text-sm">
                <span className="min-w-0">
                  <span className="block truncate font-mono text-xs text-zinc-800">{account.email}</span>
                  <span className="text-xs text-zinc-500">{account.roleLabel}</span>
                </span>
                <button
                  type="button"
                  onClick={() => fillDemoAccount(account.email)}
                  aria-label={`Use ${account.email}`}
                  className="shrink-0 rounded border border-zinc-300 px-2 py-1 text-xs text-zinc-700 hover:bg-zinc-50 focus-visible:outline-2 focus-visible:outline-blue-600"
                >
                  Use
                </button>
              </li>
            ))}
          </ul>
        </section>
      )}
    </>
  );
}
