import { ESLint } from "eslint";
import { beforeAll, describe, expect, it } from "vitest";

// The layer rules of eslint.layers.mjs, run through the repository's own eslint.config.mjs (as `npm test`'s lint
// step runs them) on snippets placed at a path in each folder: every rule refuses what it should and lets through
// what the layers allow. docs/architecture.md#layers explains the layers.

const RULE = "@typescript-eslint/no-restricted-imports";
let eslint: ESLint;

beforeAll(() => {
  eslint = new ESLint({ cwd: process.cwd() });
});

/** The layer messages for `code` placed at `filePath` (the file need not exist). */
async function layerErrors(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(`${code}\nexport const used = 1;\n`, { filePath });
  return result.messages.filter((m) => m.ruleId === RULE).map((m) => m.message);
}

const refused = async (filePath: string, code: string, why: RegExp) => {
  const errors = await layerErrors(filePath, code);
  expect(errors, `${filePath}: ${code}`).toHaveLength(1);
  expect(errors[0]).toMatch(why);
};
const allowed = async (filePath: string, code: string) =>
  expect(await layerErrors(filePath, code), `${filePath}: ${code}`).toEqual([]);

describe("layers in lint", () => {
  it("lib/ never imports app/ or components/", async () => {
    await refused(
      "lib/sandbox/x.ts",
      `import { GET } from "@/app/api/health/route"; void GET;`,
      /never imports app\/ or components\//,
    );
    await refused(
      "lib/queries/x.ts",
      `import { Button } from "@/components/ui/button"; void Button;`,
      /never imports app\/ or components\//,
    );
    await refused(
      "lib/tools/registered/x.ts",
      `import { GET } from "../../../app/api/health/route"; void GET;`,
      /never imports app\/ or components\//,
    );
    await refused(
      "lib/store/x.ts",
      `export { GET } from "@/app/api/health/route";`,
      /never imports app\/ or components\//,
    );
    await allowed("lib/queries/x.ts", `import { getDb } from "@/lib/db"; void getDb;`);
  });

  it("lib/runtime imports only zod, node:* and its own files — not even types from elsewhere", async () => {
    await refused(
      "lib/runtime/x.ts",
      `import { NextResponse } from "next/server"; void NextResponse;`,
      /only zod, node:\*/,
    );
    await refused("lib/runtime/x.ts", `import { getDb } from "@/lib/db"; void getDb;`, /only zod, node:\*/);
    await refused("lib/runtime/x.ts", `import type { Db } from "../db"; export type D = Db;`, /only zod, node:\*/);
    await refused("lib/runtime/x.ts", `import { useState } from "react"; void useState;`, /only zod, node:\*/);
    await allowed(
      "lib/runtime/x.ts",
      `import { z } from "zod"; import { randomUUID } from "node:crypto"; import type { RunStatus } from "./types"; void z; void randomUUID; export type S = RunStatus;`,
    );
  });

  it("lib/store does not import auth, inbox, queries or agents", async () => {
    for (const source of [
      "@/lib/auth/session",
      "@/lib/auth",
      "@/lib/inbox/queue",
      "@/lib/queries/runs",
      "@/lib/agents/registry",
      "../inbox/queue",
    ]) {
      await refused(
        "lib/store/x.ts",
        `import * as m from "${source}"; void m;`,
        /does not import auth, inbox, queries or agents/,
      );
    }
    await allowed(
      "lib/store/x.ts",
      `import { writeAudit } from "@/lib/audit/audit-log"; import { IMPACT_RANK } from "@/lib/runtime/impact"; void writeAudit; void IMPACT_RANK;`,
    );
  });

  it("lib/store looks up no ambient workspace: it is passed in", async () => {
    for (const source of ["@/lib/workspaces/scope", "@/lib/runtime/workspace", "../workspaces/scope"]) {
      await refused("lib/store/x.ts", `import * as m from "${source}"; void m;`, /looks up no ambient workspace/);
    }
  });

  it("components/ never imports lib/db, lib/store or the engine, except as types", async () => {
    await refused(
      "components/runs/x.tsx",
      `import { getDb } from "@/lib/db"; void getDb;`,
      /through lib\/commands and lib\/queries/,
    );
    await refused(
      "components/runs/x.tsx",
      `import { createPrismaStore } from "@/lib/store/prisma-store"; void createPrismaStore;`,
      /through lib\/commands and lib\/queries/,
    );
    await refused(
      "components/runs/x.tsx",
      `import { createEngine } from "@/lib/runtime/engine"; void createEngine;`,
      /engine's vocabulary/,
    );
    await refused(
      "components/runs/x.tsx",
      `import { createRuntime } from "@/lib/runtime"; void createRuntime;`,
      /engine's vocabulary/,
    );
    await refused(
      "components/runs/x.tsx",
      `import { getRuntime } from "@/lib/runtime.server"; void getRuntime;`,
      /do not start the runtime/,
    );
    await allowed(
      "components/runs/x.tsx",
      `import type { Db } from "@/lib/db"; import type { Store } from "@/lib/runtime/store"; import { RUN_STATUSES } from "@/lib/runtime/types"; void RUN_STATUSES; export type T = [Db, Store];`,
    );
  });

  it("app/ reaches the database through lib/commands and lib/queries, and the engine only by its vocabulary", async () => {
    await refused(
      "app/api/x/route.ts",
      `import { createPrismaStore } from "@/lib/store/prisma-store"; void createPrismaStore;`,
      /app\/ reaches the database/,
    );
    await refused(
      "app/api/x/route.ts",
      `import { PrismaClient } from "@prisma/client"; void PrismaClient;`,
      /app\/ reaches the database/,
    );
    await refused(
      "app/(console)/x/page.tsx",
      `import { decidePacket } from "@/lib/runtime/decide-packet"; void decidePacket;`,
      /engine's vocabulary/,
    );
    // A relative path is the same import as the alias.
    await refused(
      "app/api/x/route.ts",
      `import { createPrismaStore } from "../../../lib/store/prisma-store"; void createPrismaStore;`,
      /app\/ reaches the database/,
    );
    await refused(
      "app/(console)/x/page.tsx",
      `import { decidePacket } from "../../../lib/runtime/decide-packet"; void decidePacket;`,
      /engine's vocabulary/,
    );
    await allowed(
      "app/api/x/route.ts",
      `import { AppError } from "@/lib/runtime/errors"; import type { Engine } from "@/lib/runtime/engine"; void AppError; export type E = Engine;`,
    );
  });

  it("app/ takes no database client from lib/db: routes get it from their wrapper, pages read through lib/queries", async () => {
    await refused(
      "app/api/x/route.ts",
      `import { getDb } from "@/lib/db"; void getDb;`,
      /takes no client from lib\/db/,
    );
    await refused(
      "app/(console)/x/page.tsx",
      `import { getDb } from "../../../lib/db"; void getDb;`,
      /takes no client from lib\/db/,
    );
    await refused("app/api/x/route.ts", `export { getDb } from "@/lib/db";`, /takes no client from lib\/db/);
    await allowed("app/api/x/route.ts", `import type { Db } from "@/lib/db"; export type D = Db;`);
  });

  it("app/ writes through lib/commands and reads through lib/queries, not the domain's own folders", async () => {
    const why = /reaches the domain through lib\/commands \(writes\) and lib\/queries \(reads\)/;
    const use = (name: string, from: string) => `import { ${name} } from "${from}"; void ${name};`;
    for (const [name, from] of [
      ["createChannel", "@/lib/notifications/channels"],
      ["fireSchedules", "@/lib/schedules/fire-schedules"],
      ["runTrial", "../../../lib/evals/driver"],
      ["whyNotDecider", "@/lib/inbox/queue-deciders"],
      ["writeAudit", "@/lib/audit/audit-log"],
    ])
      await refused("app/(console)/x/page.tsx", use(name, from), why);
    for (const [name, from] of [
      ["createChannel", "@/lib/commands/create-channel"],
      ["findChannels", "@/lib/queries/notifications"],
      ["DEFAULT_THRESHOLDS", "@/lib/evals/spec"],
      ["parseInboxFilters", "@/lib/inbox/queue"],
    ])
      await allowed("app/(console)/x/page.tsx", use(name, from));
    await allowed(
      "app/api/x/route.ts",
      `import type { ChannelView } from "@/lib/notifications/channels"; export type C = ChannelView;`,
    );
  });
});
