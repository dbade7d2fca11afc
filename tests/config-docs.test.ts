import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { ENV_VARIABLES } from "../lib/config";
import { CONFIGURATION_DOC, renderConfigurationDoc } from "../scripts/config-docs";

describe("docs/configuration.md", () => {
  it("is what `npm run docs:config` prints from lib/config.ts (run it after changing a variable)", () => {
    const rendered = renderConfigurationDoc();
    expect(readFileSync(CONFIGURATION_DOC, "utf8"), "docs/configuration.md is stale: run npm run docs:config").toBe(
      rendered,
    );
    for (const name of ENV_VARIABLES) expect(rendered).toContain(`| \`${name}\``);
  });
});
