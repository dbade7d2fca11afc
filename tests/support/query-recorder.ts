import type { Db } from "../../lib/db";

export type RecordedQuery = { model?: string; operation: string; args: Record<string, unknown> };

/**
 * The same client, recording every model query it is asked for (model, operation, arguments), so a test
 * can check what a read model selects — e.g. that a list never reads a run's state column.
 */
export function recordQueries(db: Db): { db: Db; queries: RecordedQuery[] } {
  const queries: RecordedQuery[] = [];
  const recording = db.$extends({
    query: {
      $allModels: {
        $allOperations({ model, operation, args, query }) {
          queries.push({ model, operation, args: (args ?? {}) as Record<string, unknown> });
          return query(args);
        },
      },
    },
  });
  return { db: recording as unknown as Db, queries };
}

/** The columns a recorded query reads: its `select` keys, or "*" when it selects every column. */
export function selectedColumns(query: RecordedQuery): string[] {
  const select = query.args.select as Record<string, unknown> | undefined;
  return select ? Object.keys(select).filter((key) => select[key]) : ["*"];
}
