import { describe, expect, it } from "vitest";
import { buildScoreSeries, scaleLinear, type ChartBox, type ChartInput } from "../components/evals/chart";

// The score-history chart's geometry: 0..1 scores on a fixed y axis, eval runs evenly spaced, a gap
// where a run has no score for the dimension.

const box: ChartBox = { width: 120, height: 110, top: 10, right: 10, bottom: 0, left: 10 };
const run = (id: string, completion: number | null): ChartInput => ({
  evalRunId: id,
  label: id,
  scores: { completion },
});

describe("scaleLinear", () => {
  it("maps a domain onto a range, reversed ranges included", () => {
    expect(scaleLinear([0, 1], [0, 100])(0.25)).toBe(25);
    expect(scaleLinear([0, 1], [100, 0])(0.25)).toBe(75);
    expect(scaleLinear([5, 5], [0, 100])(5)).toBe(50);
  });
});

describe("buildScoreSeries", () => {
  it("spaces runs evenly left to right and puts score 1 at the top, 0 at the bottom", () => {
    const series = buildScoreSeries([run("a", 0), run("b", 0.5), run("c", 1)], "completion", 0.95, box);
    expect(series.points.map((p) => [p.x, p.y])).toEqual([
      [10, 110],
      [60, 60],
      [110, 10],
    ]);
    expect(series.path).toBe("M10,110 L60,60 L110,10");
    expect(series.thresholdY).toBe(15);
    expect(series.yTicks).toEqual([
      { value: 0, y: 110 },
      { value: 0.5, y: 60 },
      { value: 1, y: 10 },
    ]);
    expect(series.latest).toBe(1);
  });

  it("breaks the line where a run has no score, and keeps the last known score as the latest", () => {
    const series = buildScoreSeries(
      [run("a", 1), run("b", null), run("c", 0.5), run("d", 0.5), run("e", null)],
      "completion",
      undefined,
      box,
    );
    expect(series.path).toBe("M10,10 M60,60 L85,60");
    expect(series.points[1]).toMatchObject({ value: null, y: null, x: 35 });
    expect(series.thresholdY).toBeNull();
    expect(series.latest).toBe(0.5);
  });

  it("centres a single run and clamps scores outside 0..1", () => {
    const series = buildScoreSeries([run("only", 1.2)], "completion", 1, box);
    expect(series.points[0]).toMatchObject({ x: 60, y: 10, value: 1.2 });
    expect(series.path).toBe("M60,10");
  });

  it("draws nothing for a dimension no run has", () => {
    const series = buildScoreSeries([run("a", 1)], "recovery", 1, box);
    expect(series.path).toBe("");
    expect(series.latest).toBeNull();
  });
});
