import { readFileSync } from "node:fs";
import AxeBuilder from "@axe-core/playwright";
import { expect, test, type BrowserContext, type Page, type Request } from "@playwright/test";
import { storageStateFile } from "./fixtures";

// Eval datasets in the console: an admin imports a JSONL dataset (an invalid line is listed and nothing
// is imported), reads its cases and exports it back; a reviewer cannot import — the page says so, and
// the server action refuses even when the form is submitted with a reviewer's session.

const caseLine = (id: string, title: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    id,
    agent: "refund-agent",
    title,
    tags: ["e2e", "refund"],
    input: { orderId: "ord_1001", reason: "Cancelled within the hour." },
    reviewer: [{ tool: "payments.refund", decision: "approve", delayMs: 20 }],
    expect: {
      status: "COMPLETED",
      output: [{ path: "output.refunded", op: "eq", value: true }],
      tools: { must: ["payments.refund"] },
      approvals: ["payments.refund"],
      budgets: { steps: 20 },
    },
    ...extra,
  });

const datasetName = () => `e2e-${Date.now().toString(36)}-${Math.floor(Math.random() * 1e4)}`;

async function expectNoSeriousAxeViolations(page: Page) {
  // The page's own content; the shared sidebar is checked by the shell's specs.
  const { violations } = await new AxeBuilder({ page }).include("main").analyze();
  expect(
    violations
      .filter((v) => v.impact === "serious" || v.impact === "critical")
      .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`),
  ).toEqual([]);
}

/** A <Card>: a section headed by its title. */
const card = (page: Page, title: string) =>
  page.locator("section").filter({ has: page.getByRole("heading", { name: title, exact: true }) });

/**
 * The requests a browser context sent whose answer has not arrived yet. An answer's Set-Cookie lands with
 * its headers, so once a request is answered (or failed) it can no longer change the session.
 */
function watchAnswers(context: BrowserContext) {
  const awaiting = new Set<Request>();
  context.on("request", (request) => awaiting.add(request));
  context.on("response", (response) => awaiting.delete(response.request()));
  context.on("requestfailed", (request) => awaiting.delete(request));
  return { awaiting: () => [...awaiting], isAwaiting: (request: Request) => awaiting.has(request) };
}

/**
 * Swap the browser's session for another role's. A request the page sent before the swap (a prefetch) can
 * answer with the old session's cookie and put it back, so: swap, wait until every request sent before it
 * is answered, and swap again while the old cookie came back.
 */
async function useSessionOf(context: BrowserContext, answers: ReturnType<typeof watchAnswers>, role: "reviewer") {
  const { cookies } = JSON.parse(readFileSync(storageStateFile(role), "utf8")) as {
    cookies: Parameters<BrowserContext["addCookies"]>[0];
  };
  const session = cookies.find((c) => c.name.includes("session-token"))!;
  const current = async () => (await context.cookies()).find((c) => c.name === session.name)?.value;
  let sentBefore: Request[] = [];
  await expect
    .poll(
      async () => {
        if (sentBefore.some(answers.isAwaiting)) return "a request sent with the old session is still unanswered";
        if ((await current()) === session.value) return "swapped";
        await context.clearCookies();
        await context.addCookies(cookies);
        sentBefore = answers.awaiting();
        return "swapping";
      },
      { timeout: 15_000 },
    )
    .toBe("swapped");
}

async function fillImportForm(page: Page, name: string, jsonl: string) {
  await page.getByLabel("Dataset name").fill(name);
  await page.getByLabel("Cases (JSONL: one case a line)").fill(jsonl);
}

test.describe("as an admin", () => {
  test.use({ storageState: storageStateFile("admin") });

  test("imports a JSONL dataset (invalid lines listed, nothing imported), reads its cases and exports it", async ({
    page,
  }) => {
    test.slow(); // a whole journey with four accessibility scans
    const name = datasetName();
    await page.goto("/evals/datasets");
    await page.getByRole("link", { name: "Import dataset" }).click();
    await expect(page.getByRole("heading", { name: "Import a dataset", level: 1 })).toBeVisible();
    await expectNoSeriousAxeViolations(page);

    // one good line, one broken JSON line, one case with a bad id: the server lists both bad lines
    await fillImportForm(
      page,
      name,
      [caseLine("e2e-approved", "Approved refund"), "{not json", caseLine("Bad Id", "Bad")].join("\n"),
    );
    await page.getByRole("button", { name: "Import dataset" }).click();
    await expect(page.getByRole("alert").filter({ hasText: "The dataset was not imported" })).toContainText(
      "2 lines are invalid. Nothing was imported.",
    );
    const invalid = page.getByRole("region", { name: "Invalid lines" });
    await expect(invalid.getByRole("listitem")).toHaveCount(2);
    await expect(invalid.getByRole("listitem").first()).toHaveText(/^Line 2: not JSON/);
    await expect(invalid.getByRole("listitem").nth(1)).toHaveText(/^Line 3: id: A case id is lower-case/);
    await expect(page.getByLabel("Cases (JSONL: one case a line)")).toHaveAttribute("aria-invalid", "true");
    await page.goto("/evals/datasets");
    await expect(page.getByRole("link", { name, exact: true })).toHaveCount(0);

    // the fixed file, uploaded as a file this time
    await page.goto("/evals/datasets/import");
    const jsonl = [
      caseLine("e2e-approved", "Approved refund"),
      "// a comment line",
      caseLine("e2e-rejected", "Rejected refund", {
        reviewer: [{ decision: "reject", reason: "Not eligible." }],
        expect: { status: "COMPLETED" },
      }),
    ].join("\n");
    await page
      .getByLabel("JSONL file")
      .setInputFiles({ name: `${name}.jsonl`, mimeType: "application/jsonl", buffer: Buffer.from(jsonl) });
    await expect(page.getByLabel("Dataset name")).toHaveValue(name);
    await expect(page.getByLabel("Cases (JSONL: one case a line)")).toHaveValue(jsonl);
    await page.getByRole("button", { name: "Import dataset" }).click();

    await expect(page).toHaveURL(new RegExp(`/evals/datasets/${name}\\?imported=2$`));
    await expect(page.getByRole("heading", { name: `Dataset ${name}`, level: 1 })).toBeVisible();
    await expect(page.getByRole("status").filter({ hasText: "Imported 2 cases" })).toBeVisible();
    const cases = page.getByRole("table", { name: "The dataset's cases, in order" });
    await expect(cases.getByRole("row")).toHaveCount(3);
    await expect(cases.getByRole("row").nth(1)).toContainText("e2e-approved");
    await expect(cases.getByRole("row").nth(1)).toContainText("approval for payments.refund");
    await expectNoSeriousAxeViolations(page);

    // export: the download is the same cases, one a line
    const [download] = await Promise.all([
      page.waitForEvent("download"),
      page.getByRole("link", { name: "Export JSONL" }).click(),
    ]);
    expect(download.suggestedFilename()).toMatch(new RegExp(`^${name}-[0-9a-f]{16}\\.jsonl$`));
    const exported = readFileSync((await download.path())!, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { id: string; reviewer: unknown[] });
    expect(exported.map((c) => c.id)).toEqual(["e2e-approved", "e2e-rejected"]);
    expect(exported[0].reviewer).toEqual([
      expect.objectContaining({ tool: "payments.refund", decision: "approve", delayMs: 20 }),
    ]);

    // a case: input, scripted reviewer answers, expectations
    await cases.getByRole("link", { name: "Approved refund" }).click();
    await expect(page.getByRole("heading", { name: "Approved refund", level: 1 })).toBeVisible();
    await expect(card(page, "Input")).toContainText('"orderId": "ord_1001"');
    await expect(card(page, "Scripted reviewer answers")).toContainText("approve");
    await expect(card(page, "Scripted reviewer answers")).toContainText("payments.refund");
    await expect(card(page, "Expectations")).toContainText("output.refunded");
    await expectNoSeriousAxeViolations(page);

    // importing again under the same name asks before replacing its cases
    await page.goto("/evals/datasets/import");
    await fillImportForm(page, name, caseLine("e2e-only", "Only case"));
    await expect(page.getByText(`A dataset named ${name} exists (2 cases`)).toBeVisible();
    await page.getByRole("button", { name: "Import dataset" }).click();
    const dialog = page.getByRole("dialog", { name: `Replace the cases of ${name}?` });
    await dialog.getByRole("button", { name: "Replace cases" }).click();
    await expect(page).toHaveURL(new RegExp(`/evals/datasets/${name}\\?imported=1$`));
    await expect(page.getByRole("table", { name: "The dataset's cases, in order" }).getByRole("row")).toHaveCount(2);
  });

  test("the server refuses an import submitted with a reviewer's session", async ({ page, context }) => {
    const name = datasetName();
    const answers = watchAnswers(context); // before the page sends anything
    await page.goto("/evals/datasets/import");
    await fillImportForm(page, name, caseLine("e2e-x", "X"));
    // The form is on screen; the session behind it is now a reviewer's (as if the role changed meanwhile).
    await useSessionOf(context, answers, "reviewer");
    await page.getByRole("button", { name: "Import dataset" }).click();
    await expect(page.getByRole("alert").filter({ hasText: "The dataset was not imported" })).toContainText(
      "Your role (reviewer) does not allow this.",
    );
    await page.goto(`/evals/datasets/${name}`);
    await expect(page.getByRole("heading", { name: `Dataset ${name}` })).toHaveCount(0);
  });
});

test.describe("as a reviewer", () => {
  test.use({ storageState: storageStateFile("reviewer") });

  test("sees datasets but no import, and the import page says why", async ({ page }) => {
    await page.goto("/evals/datasets");
    await expect(page.getByRole("heading", { name: "Evals", level: 1 })).toBeVisible();
    await expect(page.getByRole("link", { name: "Import dataset" })).toHaveCount(0);
    await page.goto("/evals/datasets/import");
    await expect(page.getByRole("heading", { name: "You don't have access to this page" })).toBeVisible();
    await expect(page.getByText("admin:manage")).toBeVisible();
    await expect(page.getByLabel("Cases (JSONL: one case a line)")).toHaveCount(0);
  });
});
