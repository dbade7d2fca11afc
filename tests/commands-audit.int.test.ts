import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { BOOTSTRAP_OWNER_EMAIL, hashToken } from "../lib/api/tokens";
import { findAuditLog } from "../lib/audit/audit-log";
import { createUser } from "../lib/commands/create-user";
import { createWorkspace } from "../lib/commands/create-workspace";
import { ensureBootstrapToken } from "../lib/commands/ensure-bootstrap-token";
import { importDataset } from "../lib/commands/import-dataset";
import { putMember } from "../lib/commands/put-member";
import { removeMember } from "../lib/commands/remove-member";
import { createDb, type Db } from "../lib/db";
import { getDataset } from "../lib/queries/eval-records";
import { inWorkspace } from "../lib/runtime/workspace";
import { expectError, providers, uid } from "./support/runtime";

// The commands that make accounts, workspaces, memberships, the bootstrap token and the eval CLI's datasets write
// their audit row in the transaction of their change: the row is there after the command, and when the audit write
// fails (or the input is bad) nothing of the change is left behind.

// writeAudit, failing for one action on demand: the command's change must roll back with it.
const auditFailure = vi.hoisted(() => ({ action: null as string | null }));
vi.mock("../lib/audit/audit-log", async (importOriginal) => {
  const actual = await importOriginal<typeof import("../lib/audit/audit-log")>();
  return {
    ...actual,
    writeAudit: async (...args: Parameters<typeof actual.writeAudit>) => {
      if (args[1].action === auditFailure.action) throw new Error(`audit log unavailable (${args[1].action})`);
      return actual.writeAudit(...args);
    },
  };
});

const strong = "a sturdy passphrase 42";
const dataset = readFileSync("evals/datasets/default.jsonl", "utf8").split("\n").slice(0, 2).join("\n");

describe.each(providers())("commands audit in their own transaction [%s]", (_provider, url) => {
  let db: Db;
  beforeAll(() => {
    db = createDb(url);
  });
  afterEach(() => {
    auditFailure.action = null;
  });
  afterAll(async () => {
    await db.$disconnect();
  });

  const instanceAdmin = async () => {
    const email = `${uid("owner")}@example.com`;
    await db.user.create({
      data: { id: `usr_${randomUUID().replaceAll("-", "")}`, email, role: "admin", instanceAdmin: true },
    });
    return email;
  };
  const slug = () =>
    uid("ws")
      .toLowerCase()
      .replace(/[^a-z0-9-]/g, "-");

  it("the bootstrap token is created with a tokens.create row by setup; an unchanged start writes none", async () => {
    const value = `${uid("boot")}-0123456789`;
    expect(await ensureBootstrapToken({ db }, value)).toBe("created");
    const token = await db.apiToken.findUniqueOrThrow({ where: { tokenHash: hashToken(value) }, select: { id: true } });
    const rows = await findAuditLog(db, { action: "tokens.create", target: token.id });
    expect(rows).toEqual([
      expect.objectContaining({
        actor: "setup",
        data: {
          name: "bootstrap",
          scopes: ["admin"],
          user: BOOTSTRAP_OWNER_EMAIL,
          expiresAt: null,
          via: "TETHER_BOOTSTRAP_TOKEN",
        },
      }),
    ]);
    // Its owner was made by a bootstrap start too (this one or an earlier test's), with its own row.
    expect(await findAuditLog(db, { action: "users.create", target: BOOTSTRAP_OWNER_EMAIL })).toContainEqual(
      expect.objectContaining({
        actor: "setup",
        data: { role: "admin", hasPassword: false, via: "TETHER_BOOTSTRAP_TOKEN" },
      }),
    );
    expect(await ensureBootstrapToken({ db }, value)).toBe("exists");
    expect(await findAuditLog(db, { action: "tokens.create", target: token.id })).toHaveLength(1);
  });

  it("no bootstrap token is left when its audit row cannot be written, nor for a value too short", async () => {
    const value = `${uid("boot")}-0123456789`;
    auditFailure.action = "tokens.create";
    await expect(ensureBootstrapToken({ db }, value)).rejects.toThrow("audit log unavailable");
    expect(await db.apiToken.count({ where: { tokenHash: hashToken(value) } })).toBe(0);
    auditFailure.action = null;
    await expect(ensureBootstrapToken({ db }, "too-short")).rejects.toThrow("at least 16 characters");
    expect(await db.apiToken.count({ where: { tokenHash: hashToken("too-short") } })).toBe(0);
    expect(await ensureBootstrapToken({ db }, value)).toBe("created"); // the failed start left nothing in the way
  });

  it("a dataset the eval CLI stores is audited with its cli actor; an invalid one or a failed audit stores nothing", async () => {
    const name = uid("cli-dataset");
    const stored = await importDataset(
      { db },
      { jsonl: dataset, name, source: "evals/datasets/default.jsonl", by: "cli:tester", via: "npm run eval" },
    );
    expect(await findAuditLog(db, { action: "evals.datasets.import", target: name })).toEqual([
      expect.objectContaining({
        actor: "cli:tester",
        data: { version: stored.version, caseCount: 2, via: "npm run eval" },
      }),
    ]);

    const invalid = uid("cli-invalid");
    await expectError(importDataset({ db }, { jsonl: "{nope", name: invalid, by: "cli:tester" }), "INVALID_INPUT");
    auditFailure.action = "evals.datasets.import";
    const unaudited = uid("cli-unaudited");
    await expect(importDataset({ db }, { jsonl: dataset, name: unaudited, by: "cli:tester" })).rejects.toThrow(
      "audit log unavailable",
    );
    for (const missing of [invalid, unaudited]) {
      await expectError(getDataset(missing, db), "NOT_FOUND");
      expect(await findAuditLog(db, { target: missing })).toEqual([]);
    }
  });

  it("a user is not created without its users.create row", async () => {
    const email = `${uid("nobody")}@example.com`;
    auditFailure.action = "users.create";
    await expect(
      createUser({ db }, { email, role: "reviewer", password: strong }, { by: "cli:tester" }),
    ).rejects.toThrow("audit log unavailable");
    expect(await db.user.count({ where: { email } })).toBe(0);
  });

  it("a workspace and its members change only together with their audit rows", async () => {
    const creator = await instanceAdmin();
    const refused = slug();
    auditFailure.action = "workspaces.create";
    await expect(createWorkspace({ db }, { slug: refused, name: "Refused" }, { by: creator })).rejects.toThrow(
      "audit log unavailable",
    );
    expect(await db.workspace.count({ where: { slug: refused } })).toBe(0);
    auditFailure.action = null;

    const workspace = await createWorkspace({ db }, { slug: slug(), name: "Audited" }, { by: creator });
    const member = `${uid("member")}@example.com`;
    await createUser({ db }, { email: member, role: "operator" }, { by: creator });
    const membership = () =>
      db.membership.findMany({ where: { workspaceId: workspace.id, user: { email: member } }, select: { role: true } });
    const memberRows = () =>
      inWorkspace(workspace.id, () => findAuditLog(db, { action: "workspaces.member", target: member }));

    auditFailure.action = "workspaces.member";
    await expect(
      putMember({ db }, { workspaceId: workspace.id, input: { email: member, role: "operator" }, by: creator }),
    ).rejects.toThrow("audit log unavailable");
    expect(await membership()).toEqual([]);
    auditFailure.action = null;
    await expectError(
      putMember({ db }, { workspaceId: workspace.id, input: { email: member, role: "owner" }, by: creator }),
      "INVALID_INPUT",
    );
    expect(await membership()).toEqual([]);
    expect(await memberRows()).toEqual([]);

    await putMember({ db }, { workspaceId: workspace.id, input: { email: member, role: "operator" }, by: creator });
    expect(await membership()).toEqual([{ role: "operator" }]);
    expect(await memberRows()).toEqual([expect.objectContaining({ actor: creator, data: { role: "operator" } })]);

    auditFailure.action = "workspaces.member.remove";
    await expect(
      removeMember({ db }, { workspaceId: workspace.id, input: { email: member }, by: creator }),
    ).rejects.toThrow("audit log unavailable");
    expect(await membership()).toEqual([{ role: "operator" }]);
  });
});
