// `npm run docs:config`: writes docs/configuration.md from lib/config-variables.ts (each variable's area, default and
// description), so the reference cannot drift from the code; tests/config-docs.test.ts fails when the
// committed file differs from what this prints.
import { writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { CONFIG_AREAS, ENV_VARIABLES, envSchema, TOOL_ENV_PREFIX, type VariableMeta } from "../lib/config-variables.ts";

export const CONFIGURATION_DOC = path.join(
  path.dirname(fileURLToPath(import.meta.url)),
  "..",
  "docs",
  "configuration.md",
);

/** Text for a table cell: "|" escaped, and "<" outside `code` too (Markdown would read <TETHER_DATA_DIR> as HTML). */
const cell = (text: string) =>
  text
    .replace(/\|/g, "\\|")
    .replace(/\n/g, " ")
    .split("`")
    .map((part, i) => (i % 2 === 0 ? part.replace(/</g, "&lt;") : part))
    .join("`");

/** docs/configuration.md as lib/config-variables.ts describes it. */
export function renderConfigurationDoc(): string {
  const lines = [
    "# Configuration",
    "",
    "<!-- Generated from lib/config-variables.ts by `npm run docs:config`: edit the descriptions there, not here. -->",
    "",
    "Tether reads its settings from environment variables (or `.env.local` / `.env` in the repository's root).",
    "`lib/config.ts` parses all of them at once; a value that is not what the table says stops `npm start`",
    "before the server starts, with the variable's name and what it must be. Unset variables take the default.",
    "Variables marked 🔒 hold secrets: set them in the environment, never in a committed file.",
  ];
  for (const area of CONFIG_AREAS) {
    lines.push("", `## ${area}`, "", "| Variable | Default | Description |", "|---|---|---|");
    for (const name of ENV_VARIABLES) {
      const schema = envSchema.shape[name];
      const meta = schema.meta() as VariableMeta;
      if (meta.area !== area) continue;
      lines.push(
        `| \`${name}\`${meta.secret ? " 🔒" : ""} | ${meta.default ? cell(meta.default) : "—"} | ${cell(schema.description ?? "")} |`,
      );
    }
    if (area === "Tools") {
      lines.push(
        `| \`${TOOL_ENV_PREFIX}*\` 🔒 | — | Secrets a registered tool's headers or MCP environment reference as \`{{env.${TOOL_ENV_PREFIX}NAME}}\`, read at each call (never stored). |`,
      );
    }
  }
  lines.push(
    "",
    "## Outside the server",
    "",
    "Read by the CLI, tests and scripts, not by the console or its workers (so not parsed by lib/config.ts):",
    "",
    "| Variable | Default | Description |",
    "|---|---|---|",
    "| `TETHER_URL`, `TETHER_TOKEN` 🔒 | `http://localhost:3000`, — | The `tether` CLI (bin/tether.mjs): the console to talk to and the API token to send. |",
    "| `TETHER_TEST_PG_URL` | `postgresql://postgres@127.0.0.1:5432/postgres` | Tests: the server to create their throwaway Postgres database on. |",
    "| `TETHER_REQUIRE_PG` | off | Tests: `1` makes a missing Postgres, or Postgres tests that did not run, a failure. |",
    "| `TETHER_SKIP_E2E`, `CHROMIUM_PATH`, `E2E_PORT` | off, `/usr/bin/chromium`, `3100` | Tests: skip the browser tests; the Chromium to drive; the e2e server's port. |",
    "",
    "## Read by the libraries themselves",
    "",
    "- The OpenTelemetry exporter reads its standard variables (`OTEL_EXPORTER_OTLP_HEADERS`, `OTEL_EXPORTER_OTLP_TIMEOUT`,",
    "  `OTEL_BSP_*`, `OTEL_SERVICE_NAME`, `OTEL_RESOURCE_ATTRIBUTES` …): see [observability.md](observability.md).",
    "- Auth.js reads its own `AUTH_*` variables as well; Prisma's command-line tools read `DATABASE_URL` through `prisma.config.ts`.",
    "",
  );
  return lines.join("\n");
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  writeFileSync(CONFIGURATION_DOC, renderConfigurationDoc());
  console.log(`[docs:config] wrote ${path.relative(process.cwd(), CONFIGURATION_DOC)}`);
}
