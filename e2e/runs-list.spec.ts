import AxeBuilder from "@axe-core/playwright";
import { expect, test, type Page } from "@playwright/test";
import { tetherApi } from "./api";

// The runs list: search by run id and by input text, agent and status filters, keyset paging.

const bodyRows = (page: Page) =>
  page
    .getByRole("table")
    .getByRole("row")
    .filter({ has: page.getByRole("cell") });

test("search, filters and paging", async ({ page, request }) => {
  test.setTimeout(90_000);
  const api = tetherApi(request);
  // 52 runs that share a word in their input, so the search narrows the list to exactly them.
  const tag = `pagetest${Date.now().toString(36)}`;
  const ids: string[] = [];
  for (let i = 0; i < 52; i++)
    ids.push((await api.startRun("deploy-agent", { migration: `0900_${tag}_${i}`, reason: `Paging test ${tag}` })).id);

  await page.goto("/runs");
  await page.getByLabel("Search").fill(tag);
  await page.getByRole("button", { name: "Apply" }).click();
  await expect(page).toHaveURL(new RegExp(`/w/default/runs\\?.*q=${tag}`)); // the search stays in the page's workspace
  await expect(bodyRows(page)).toHaveCount(50);
  await expect(bodyRows(page).first()).toContainText(ids[51]); // newest first

  await page.getByRole("link", { name: "Next page →" }).click();
  await expect(bodyRows(page)).toHaveCount(2);
  await expect(bodyRows(page).nth(0)).toContainText(ids[1]);
  await expect(bodyRows(page).nth(1)).toContainText(ids[0]);
  await expect(page.getByRole("link", { name: "Next page →" })).toHaveCount(0);
  await page.getByRole("link", { name: "← Newest" }).click();
  await expect(bodyRows(page)).toHaveCount(50);

  // The agent filter keeps the search; another agent has none of these runs.
  await page.getByLabel("Agent").selectOption("refund-agent");
  await page.getByRole("button", { name: "Apply" }).click();
  await expect(page.getByText("No runs match")).toBeVisible();
  await page.getByLabel("Agent").selectOption("deploy-agent");
  await page.getByRole("button", { name: "Apply" }).click();
  await expect(bodyRows(page)).toHaveCount(50);

  // A status chip keeps the search and the agent.
  const statuses = page.getByRole("navigation", { name: "Filter by status" });
  await statuses.getByRole("link", { name: "Completed", exact: true }).click();
  await expect(page).toHaveURL(/status=COMPLETED/);
  await expect(page).toHaveURL(new RegExp(`q=${tag}`));
  await expect(page.getByText("No completed runs match")).toBeVisible();

  // A run id finds that run alone.
  await page.getByRole("link", { name: "Clear filters" }).click();
  // Wait for the cleared page: a search typed into the old one would be sent with its status filter.
  await expect(page).toHaveURL(/\/runs$/);
  await expect(page.getByLabel("Agent")).toHaveValue("");
  await page.getByLabel("Search").fill(ids[7]);
  await page.getByRole("button", { name: "Apply" }).click();
  await expect(bodyRows(page)).toHaveCount(1);
  await page.getByRole("link", { name: ids[7], exact: true }).click();
  await expect(page.getByRole("heading", { level: 1, name: ids[7] })).toBeVisible();
});

test("a version filter (the agents page links here with one) is shown, and can be removed", async ({
  page,
  request,
}) => {
  const api = tetherApi(request);
  const { id } = await api.startRun("deploy-agent", {
    migration: `0901_version_${Date.now().toString(36)}`,
    reason: "Version filter test",
  });
  const { agentVersion } = await api.getRun(id);

  await page.goto(`/runs?agent=deploy-agent&version=${encodeURIComponent(agentVersion)}&q=${id}`);
  await expect(page.getByText(`Only version ${agentVersion} of deploy-agent`)).toBeVisible();
  await expect(bodyRows(page)).toHaveCount(1);

  // a version this agent never ran with: the list is empty, and says which filter empties it
  await page.goto(`/runs?agent=deploy-agent&version=no-such-version&q=${id}`);
  await expect(page.getByText("No runs match")).toBeVisible();
  await page.getByRole("link", { name: "every version" }).click();
  await expect(page).not.toHaveURL(/version=/);
  await expect(page).toHaveURL(/agent=deploy-agent/);
  await expect(bodyRows(page)).toHaveCount(1);
});

test("the runs list has no serious accessibility violations", async ({ page }) => {
  test.setTimeout(90_000); // axe takes its time on a busy machine
  await page.goto("/runs");
  await expect(page.getByRole("table")).toBeVisible();
  // The sidebar (components/shell) is the shell's own to fix; this checks the runs page itself.
  const results = await new AxeBuilder({ page }).exclude("aside").analyze();
  const serious = results.violations.filter((v) => v.impact === "serious" || v.impact === "critical");
  expect(serious.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`)).toEqual([]);
});
