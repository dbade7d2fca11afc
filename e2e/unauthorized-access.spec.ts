import { readFileSync } from "node:fs";
import path from "node:path";
import { expect, test, type APIRequestContext, type Page } from "@playwright/test";
import { DEMO_PASSWORD, storageStateFile } from "./fixtures";

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
  for (const email of ["reviewer@example.com", "operator@example.com", "admin@example.com"])
    await expect(demo).toContainText(email);
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
  await expect(nav.getByRole("link")).toHaveText(["Inbox", "Runs", "Schedules", "Evals"]);

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
  await expect(page).toHaveURL(/localhost:\d+\/w\/default\/runs$/); // the workspace's own URL
  await expect(page.getByRole("region", { name: "Signed in as" })).toContainText("Role: Operator");
  // signed in, the sign-in page sends you on
  await page.goto("/signin?callbackUrl=%2Finbox");
  await expect(page).toHaveURL(/\/inbox$/);
});

// ---- The admin surfaces, as a reviewer: every page refuses, and so does every admin server action when
// it is called directly (not through a hidden button) — and nothing changes.

const ADMIN_PAGES = [
  "/admin/agents",
  "/admin/tools",
  "/admin/permissions",
  "/admin/users",
  "/admin/tokens",
  "/admin/audit",
];

/**
 * Calls a server action the way the browser does (POST to a page that uses it, with its Next-Action id),
 * so a test can call an action no button offers. The id comes from the build's server-reference
 * manifest; the answer is the RSC payload that carries the action's {ok, …} result.
 */
async function callServerAction(
  request: APIRequestContext,
  file: string,
  name: string,
  input: unknown,
): Promise<string> {
  const manifest = JSON.parse(
    readFileSync(path.resolve(__dirname, "..", ".next/server/server-reference-manifest.json"), "utf8"),
  ) as {
    node: Record<string, { workers: Record<string, unknown>; filename: string; exportedName: string }>;
  };
  const entry = Object.entries(manifest.node).find(([, a]) => a.filename === file && a.exportedName === name);
  if (!entry) throw new Error(`server action ${file}#${name} is not in the build`);
  const [id, action] = entry;
  const pagePath =
    Object.keys(action.workers)[0]
      .replace(/^app/, "")
      .replace(/\/\([^)]+\)/g, "")
      .replace(/\/page$/, "") || "/";
  const response = await request.post(pagePath, {
    headers: { "next-action": id, accept: "text/x-component", "content-type": "text/plain;charset=UTF-8" },
    data: JSON.stringify([input]),
  });
  expect(response.status(), `${name} on ${pagePath}`).toBe(200);
  return response.text();
}

const okResult = (payload: string) => {
  const match = /"ok":true,"data":(\{.*?\})\}/.exec(payload);
  if (!match) throw new Error(`expected an ok result, got ${payload.slice(0, 300)}`);
  return payload;
};

test.describe("admin pages and actions, as a reviewer", () => {
  test.use({ storageState: storageStateFile("reviewer") });

  test("every admin page refuses a reviewer, and the sidebar does not offer them", async ({ page }) => {
    for (const path of ADMIN_PAGES) {
      await page.goto(path);
      await expect(page.getByRole("heading", { name: "You don't have access to this page", level: 1 })).toBeVisible();
      await expect(page.getByRole("main").getByRole("status")).toContainText("admin:manage");
      await expect(page.getByRole("main").getByRole("table")).toHaveCount(0);
      await expect(page.getByRole("main").getByRole("form")).toHaveCount(0);
    }
    const nav = page.getByRole("navigation", { name: "Console" });
    for (const label of ["Agents", "Tools", "Permissions", "Users", "API tokens"])
      await expect(nav.getByRole("link", { name: label, exact: true })).toHaveCount(0);
  });

  test("every admin server action called directly is refused, and nothing changes", async ({ page, browser }) => {
    test.setTimeout(90_000);
    // an admin makes a token and reads the refund grant's version
    const admin = await browser.newContext({ storageState: storageStateFile("admin") });
    let token: string;
    let tokenId: string;
    try {
      const created = okResult(
        await callServerAction(admin.request, "lib/actions/tokens.ts", "createApiTokenAction", {
          name: "reviewer cannot revoke",
          scopes: ["runs:read"],
        }),
      );
      token = /"token":"(tth_[^"]+)"/.exec(created)![1];
      tokenId = /"id":"(tok_[^"]+)"/.exec(created)![1];
    } finally {
      await admin.close();
    }

    const attempts: Array<[string, string, unknown]> = [
      ["lib/actions/tokens.ts", "revokeApiTokenAction", { tokenId }],
      ["lib/actions/tokens.ts", "createApiTokenAction", { name: "sneaky", scopes: ["admin"] }],
      [
        "lib/actions/permissions.ts",
        "putPermissionAction",
        { agent: "refund-agent", tool: "payments.refund", effect: "deny", expectedVersion: 1 },
      ],
      ["lib/actions/permissions.ts", "removePermissionAction", { permissionId: "perm_any" }],
      [
        "lib/actions/users.ts",
        "createUserAction",
        { email: "sneaky@example.com", role: "admin", password: "a sturdy passphrase 42" },
      ],
      ["lib/actions/users.ts", "changeUserRoleAction", { userId: "usr_any", role: "admin" }],
      ["lib/actions/users.ts", "setUserDisabledAction", { userId: "usr_any", isDisabled: true }],
      [
        "lib/actions/tools.ts",
        "registerToolAction",
        {
          kind: "http",
          name: "http.sneaky",
          description: "x",
          capability: "read",
          semantics: "pure-read",
          config: { url: "https://example.com" },
        },
      ],
      ["lib/actions/tools.ts", "disableToolAction", { toolId: "tool_any" }],
      ["lib/actions/tools.ts", "enableToolAction", { toolId: "tool_any" }],
    ];
    for (const [file, name, input] of attempts) {
      const payload = await callServerAction(page.request, file, name, input);
      expect(payload, name).toContain('"ok":false,"code":"FORBIDDEN"');
    }

    // nothing changed: the token still works, the grant is the demo one, no account or tool was added
    expect(
      (await page.request.get("/api/runs?limit=1", { headers: { authorization: `Bearer ${token}` } })).status(),
    ).toBe(200);
    const adminView = await browser.newContext({ storageState: storageStateFile("admin") });
    try {
      const adminPage = await adminView.newPage();
      await adminPage.goto("/admin/permissions");
      await expect(adminPage.getByRole("link", { name: /^refund-agent × payments\.refund: / })).toHaveAccessibleName(
        /: Allow, only execute, 2 conditions$/,
      );
      await expect(adminPage.getByRole("table", { name: "Every permission change, newest first" })).not.toContainText(
        "reviewer@example.com",
      );
      await adminPage.goto("/admin/users");
      await expect(adminPage.getByText("sneaky@example.com")).toHaveCount(0);
      await adminPage.goto("/admin/tools");
      await expect(adminPage.getByText("http.sneaky")).toHaveCount(0);
      await adminPage.goto("/admin/tokens");
      await expect(
        adminPage
          .getByRole("table", { name: "API tokens" })
          .getByRole("row")
          .filter({ hasText: "reviewer cannot revoke" }),
      ).toContainText("Active");
      await expect(adminPage.getByRole("table", { name: "API tokens" })).not.toContainText("sneaky");
    } finally {
      await adminView.close();
    }
    // the reviewer is still a reviewer
    await page.goto("/inbox");
    await expect(page.getByRole("region", { name: "Signed in as" })).toContainText("Role: Reviewer");
  });
});
