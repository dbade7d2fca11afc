import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createDb, type Db } from "../lib/db";
import { asSystem, inWorkspace } from "../lib/runtime/workspace";

// Prisma's calls are lazy: the query runs at the first `then`. A frame entered around a call that is handed out
// unawaited must still be the frame the query runs in.
describe("the workspace frame around a lazy Prisma call", () => {
  let db: Db;
  const id = `ws_${randomUUID().slice(0, 8)}`;
  const action = `frame.${randomUUID()}`;
  const count = () => db.auditLog.count({ where: { action } });
  beforeAll(async () => {
    db = createDb(inject("sqliteUrl"));
    await asSystem(() => db.workspace.create({ data: { id, slug: id.replace("_", "-"), name: "Frame" } }));
    await inWorkspace(id, () =>
      db.auditLog.create({ data: { id: randomUUID(), actor: "a", action, target: "t", data: "{}" } }),
    );
  });
  afterAll(() => db.$disconnect());

  it("runs the call in the frame it was made in, awaited there or not", async () => {
    expect(await inWorkspace(id, count)).toBe(1);
    expect(await inWorkspace("default", count)).toBe(0);
    expect(await inWorkspace("default", async () => count())).toBe(0);
    expect(await inWorkspace("default", () => asSystem(count))).toBe(1);
  });

  it("leaves a plain value alone", () => {
    expect(inWorkspace(id, () => 42)).toBe(42);
  });
});
