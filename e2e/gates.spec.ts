import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { expect, test } from "@playwright/test";
import { E2E_API_TOKEN, storageStateFile } from "./fixtures";

// An open gate from outside Tether, end to end: a Python program (clients/python/tether_gate.py, Debian's
// python3, the e2e server's bootstrap token — an admin's, so gates:request) asks for approval of an
// action Tether knows nothing about; it shows in the reviewer's inbox; the reviewer — a different person
// from the token's owner — edits and approves it in Chromium; the waiting Python process receives the
// edited arguments and prints them.

test.use({ storageState: storageStateFile("reviewer") });

const CREDIT_SCHEMA = {
  type: "object",
  properties: { account: { type: "string" }, amountCents: { type: "integer", minimum: 1 }, note: { type: "string" } },
  required: ["account", "amountCents"],
  additionalProperties: false,
};

test("a gate requested by the Python client is edited and approved in the inbox; the waiting process gets the edited arguments", async ({
  page,
  baseURL,
}) => {
  test.setTimeout(120_000);
  const account = `acct_${randomUUID().slice(0, 8)}`;
  const python = spawn(
    "/usr/bin/python3",
    [
      "-B",
      "clients/python/tether_gate.py",
      "--tool",
      "billing.issue_credit",
      "--args",
      JSON.stringify({ account, amountCents: 5_000, note: "late parcel" }),
      "--schema",
      JSON.stringify(CREDIT_SCHEMA),
      "--description",
      `Credit ${account} for a late parcel.`,
      "--timeout",
      "90",
    ],
    {
      env: { PATH: "/usr/bin:/bin", TETHER_URL: baseURL!, TETHER_TOKEN: E2E_API_TOKEN } as unknown as NodeJS.ProcessEnv,
    },
  );
  const out = { stdout: "", stderr: "", code: null as number | null };
  python.stdout.on("data", (chunk) => {
    out.stdout += chunk;
  });
  python.stderr.on("data", (chunk) => {
    out.stderr += chunk;
  });
  const exited = new Promise<number | null>((resolve) =>
    python.on("exit", (code) => {
      out.code = code;
      resolve(code);
    }),
  );
  try {
    await expect
      .poll(
        () =>
          /gate (\S+) is waiting/.exec(out.stderr)?.[1] ??
          (out.code !== null ? `exited ${out.code}: ${out.stderr}` : null),
        { timeout: 30_000, message: "the Python client opened a gate" },
      )
      .toMatch(/^[^ ]+$/);
    const gateId = /gate (\S+) is waiting/.exec(out.stderr)![1];

    // The inbox lists it under its tool (a requested action is Tether's tool "external:<tool>"); the reviewer opens it.
    await page.goto(`/inbox?tool=${encodeURIComponent("external:billing.issue_credit")}`);
    const row = page.getByRole("article").filter({ has: page.getByRole("link", { name: gateId }) });
    await expect(row).toBeVisible({ timeout: 15_000 });
    await expect(row.getByRole("heading", { name: "external:billing.issue_credit" })).toBeVisible();
    await row.getByRole("link", { name: /^Open packet / }).click();
    await expect(page).toHaveTitle("Decision packet · Tether");
    await expect(page.getByText(`Credit ${account} for a late parcel.`)).toBeVisible();

    // Edit the amount in the form made from the requested JSON Schema, then approve.
    await page.getByRole("radio", { name: "Edit" }).click();
    const amount = page.getByLabel("Amount cents");
    await expect(amount).toHaveValue("5000");
    await amount.fill("2500");
    await page.getByRole("button", { name: "Edit and approve" }).click();
    const confirm = page.getByRole("dialog", { name: "Approve the edited action?" });
    await expect(confirm.getByRole("list", { name: "Your changes" })).toContainText("2500");
    await confirm.getByRole("button", { name: "Confirm edit and approve" }).click();
    await expect(page.getByText("Decision recorded. The packet is now edited.")).toBeVisible();

    // The waiting Python process prints the arguments it may act on: the edited ones.
    expect(
      await Promise.race([exited, new Promise((r) => setTimeout(() => r(`still running: ${out.stderr}`), 60_000))]),
    ).toBe(0);
    expect(JSON.parse(out.stdout)).toEqual({ account, amountCents: 2_500, note: "late parcel" });
    expect(out.stderr).toContain(`gate ${gateId} edited by reviewer@example.com`);
  } finally {
    python.kill();
  }
});
