import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDb, type Db } from "../lib/db";
import { changeUserRole } from "../lib/commands/change-user-role";
import { setUserDisabled } from "../lib/commands/set-user-disabled";
import { createPostgres, createSqlite } from "./support/global-setup";
import { expectError, providers, uid } from "./support/runtime";

// The console never locks itself out: the last active admin cannot be demoted or disabled, also when two
// admins demote each other at the same moment. It counts every admin in the database, so each provider
// gets a database of its own here (the shared test database holds other tests' admins).

describe.each(providers())("the last active admin [%s]", (provider) => {
  let db: Db;
  let drop: () => void;
  const ids = { a: "", b: "" };
  const actor = (id: string) => ({ id, email: `${id}@test.example` });
  const activeAdmins = () => db.user.count({ where: { role: "admin", disabledAt: null } });

  beforeAll(async () => {
    const fresh =
      provider === "postgres"
        ? createPostgres(`tether_test_admins_${process.pid}_${Date.now()}`)!
        : await createSqlite(path.resolve("data/test", `admins-${process.pid}.db`));
    drop = fresh.drop;
    db = createDb(fresh.url);
    for (const key of ["a", "b"] as const) {
      ids[key] = uid(`usr_${key}`);
      await db.user.create({ data: { id: ids[key], email: `${ids[key]}@test.example`, role: "admin" } });
    }
  }, 60_000);
  afterAll(async () => {
    await db.$disconnect();
    drop();
  });

  it("is neither demoted nor disabled, by anyone; with a second admin again, both are allowed", async () => {
    const tokenPrincipal = actor(uid("api-token")); // not one of the two: the self-guards do not apply
    await setUserDisabled({ db }, { userId: ids.b, isDisabled: true }, actor(ids.a));
    const demote = await expectError(
      changeUserRole({ db }, { userId: ids.a, role: "reviewer" }, tokenPrincipal),
      "CONFLICT",
    );
    expect(demote.userMessage).toBe("This is the last active admin: make someone else an admin first.");
    await expectError(setUserDisabled({ db }, { userId: ids.a, isDisabled: true }, tokenPrincipal), "CONFLICT");
    expect(await db.user.findUniqueOrThrow({ where: { id: ids.a } })).toMatchObject({
      role: "admin",
      disabledAt: null,
    });

    await setUserDisabled({ db }, { userId: ids.b, isDisabled: false }, actor(ids.a));
    await changeUserRole({ db }, { userId: ids.b, role: "operator" }, tokenPrincipal);
    await changeUserRole({ db }, { userId: ids.b, role: "admin" }, tokenPrincipal);
    expect(await activeAdmins()).toBe(2);
  });

  it("two admins demoting each other at once: one wins, the other is refused, one admin is left", async () => {
    for (let round = 0; round < 5; round++) {
      const results = await Promise.allSettled([
        changeUserRole({ db }, { userId: ids.b, role: "reviewer" }, actor(ids.a)),
        changeUserRole({ db }, { userId: ids.a, role: "reviewer" }, actor(ids.b)),
      ]);
      expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
      const refused = results.find((r) => r.status === "rejected");
      expect(refused?.reason).toMatchObject({ code: "CONFLICT" });
      expect(await activeAdmins()).toBe(1);
      await db.user.updateMany({ where: { id: { in: [ids.a, ids.b] } }, data: { role: "admin" } }); // the next round
    }
  });
});
