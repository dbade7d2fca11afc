import { expect, test, type Page } from "@playwright/test";
import { DEMO_PASSWORD } from "./fixtures";

// The console without a session: every page sends the browser to the sign-in page, which brings it
// back where it was going. Signing in shows who you are and your role; signing out ends the session.
// The HTTP API stays bearer-token only: a browser session does not open it.

test.use({ storageState: { cookies: [], origins: [] } });

const signInHeading = (page: Page) => page.getByRole("heading", { name: "Sign in to the console", level: 1 });

async function signIn(page: Page, email: string, password: string) {
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
}

test("every console page redirects to sign-in, remembering where it was going", async ({ page }) => {
  const targets: Array<[string, string]> = [
    ["/runs", "/runs"],
    ["/inbox", "/inbox"],
    ["/runs/run_1234?checkpoint=2", "/runs/run_1234?checkpoint=2"],
    ["/", "/"],
  ];
  for (const [path, callbackUrl] of targets) {
    await page.goto(path);
    await expect(page).toHaveURL(`/signin?callbackUrl=${encodeURIComponent(callbackUrl)}`);
    await expect(signInHeading(page)).toBeVisible();
  }
  await expect(page).toHaveTitle("Sign in · Tether");
  await expect(page.getByRole("navigation", { name: "Console" })).toHaveCount(0);
});

test("the sign-in page lists the demo accounts and says clearly when the password is wrong", async ({ page }) => {
  await page.goto("/inbox");
  const demo = page.getByRole("region", { name: "Demo accounts" });
  for (const email of ["reviewer@example.com", "operator@example.com", "admin@example.com"]) await expect(demo).toContainText(email);
  await expect(demo).toContainText(DEMO_PASSWORD);

  await signIn(page, "reviewer@example.com", "not-the-password");
  await expect(page.getByText("Wrong email or password.")).toBeVisible();
  await expect(page).toHaveURL(/\/signin\?callbackUrl=%2Finbox$/);
  await expect(page.getByLabel("Email")).toHaveValue("reviewer@example.com");

  await page.getByLabel("Email").fill("");
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await expect(page.getByText("Enter your email address.")).toBeVisible();
  await expect(page.getByLabel("Email")).toHaveAttribute("aria-invalid", "true");
});

test("a reviewer signs in, sees who they are and their role, and signs out", async ({ page }) => {
  await page.goto("/inbox");
  await signIn(page, "reviewer@example.com", DEMO_PASSWORD);
  await expect(page).toHaveURL(/\/inbox$/);
  await expect(page.getByRole("heading", { name: "Inbox", level: 1 })).toBeVisible();

  const me = page.getByRole("region", { name: "Signed in as" });
  await expect(me).toContainText("reviewer@example.com");
  await expect(me).toContainText("Role: Reviewer");
  const nav = page.getByRole("navigation", { name: "Console" });
  await expect(nav.getByRole("link")).toHaveText(["Inbox", "Runs", "Evals"]);

  // a browser session is not an API credential: the HTTP API still wants a bearer token
  expect((await page.request.get("/api/runs")).status()).toBe(401);

  await me.getByRole("button", { name: "Sign out" }).click();
  await expect(page).toHaveURL(/\/signin$/);
  await expect(signInHeading(page)).toBeVisible();
  await page.goto("/inbox");
  await expect(page).toHaveURL(/\/signin\?callbackUrl=%2Finbox$/);
});

test("a demo account can be picked from the list; a foreign callbackUrl is not followed", async ({ page }) => {
  await page.goto(`/signin?callbackUrl=${encodeURIComponent("https://evil.example/steal")}`);
  await page.getByRole("button", { name: "Use operator@example.com" }).click();
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await expect(page).toHaveURL(/localhost:\d+\/runs$/);
  await expect(page.getByRole("region", { name: "Signed in as" })).toContainText("Role: Operator");
  // signed in, the sign-in page sends you on
  await page.goto("/signin?callbackUrl=%2Finbox");
  await expect(page).toHaveURL(/\/inbox$/);
});
