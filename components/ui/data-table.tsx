import type { ReactNode } from "react";
import { Table, Td, Th } from "./table";

// A table described by its columns: each column says its heading and how a row fills its cell, so a list
// page writes what it shows and the table markup (scope, caption, borders) lives here once.

type RowValue<Row, T> = T | ((row: Row) => T);

export type Column<Row> = {
  header: ReactNode;
  /** A heading only screen readers hear (a column of buttons or links that name themselves). */
  isHeaderHidden?: boolean;
  /** Numbers and scores: the heading and the cells align right. */
  align?: "right";
  /** Extra classes of the heading cell (a width). */
  headerClassName?: string;
  /** Extra classes of each body cell, fixed or by row. */
  className?: RowValue<Row, string>;
  cell: (row: Row) => ReactNode;
};

type DataTableProps<Row> = {
  columns: Column<Row>[];
  rows: readonly Row[];
  /** A row's React key; by default its position (enough for a table that never reorders). */
  rowKey?: (row: Row, index: number) => string | number;
  /** The table's accessible name, read by screen readers only. */
  caption?: ReactNode;
  rowClassName?: RowValue<Row, string | undefined>;
  /** Marks each body row for tests that count or pick rows. */
  rowTestId?: string;
};

const resolve = <Row, T>(value: RowValue<Row, T>, row: Row): T =>
  typeof value === "function" ? (value as (row: Row) => T)(row) : value;

const classes = (...names: Array<string | undefined>) => names.filter(Boolean).join(" ");

const byPosition = (_row: unknown, index: number) => index;

export function DataTable<Row>({
  columns,
  rows,
  rowKey = byPosition,
  caption,
  rowClassName,
  rowTestId,
}: DataTableProps<Row>) {
  const alignOf = (column: Column<Row>) => (column.align === "right" ? "text-right" : undefined);
  return (
    <Table>
      {caption && <caption className="sr-only">{caption}</caption>}
      <thead>
        <tr>
          {columns.map((column, i) => (
            <Th key={i} className={classes(alignOf(column), column.headerClassName)}>
              {column.isHeaderHidden ? <span className="sr-only">{column.header}</span> : column.header}
            </Th>
          ))}
        </tr>
      </thead>
      <tbody>
        {rows.map((row, index) => (
          <tr key={rowKey(row, index)} className={resolve(rowClassName, row)} data-testid={rowTestId}>
            {columns.map((column, i) => (
              <Td key={i} className={classes(alignOf(column), resolve(column.className, row))}>
                {column.cell(row)}
              </Td>
            ))}
          </tr>
        ))}
      </tbody>
    </Table>
  );
}
