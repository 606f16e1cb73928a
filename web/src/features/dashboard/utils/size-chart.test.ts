import { describe, expect, test } from "bun:test";
import { buildSizeChart } from "./size-chart";

describe("backup size chart", () => {
  test("completed backups only, oldest left, largest at the top", () => {
    const chart = buildSizeChart(
      [
        { size: 400, createdAt: "2025-01-03T00:00:00Z", status: "completed" },
        { size: 999, createdAt: "2025-01-02T12:00:00Z", status: "failed" },
        { size: 200, createdAt: "2025-01-01T00:00:00Z", status: "completed" },
        { size: 0, createdAt: "2025-01-02T00:00:00Z", status: "in-progress" },
      ],
      100,
      50,
    );
    expect(chart.maxSize).toBe(400);
    expect(chart.points.map((p) => [p.x, p.y, p.size])).toEqual([
      [0, 25, 200],
      [100, 0, 400],
    ]);
    expect(chart.path).toBe("M0.0,25.0 L100.0,0.0");
  });

  test("spacing follows time, not order", () => {
    const chart = buildSizeChart(
      ["2025-01-01T00:00:00Z", "2025-01-01T03:00:00Z", "2025-01-02T00:00:00Z"].map((createdAt) => ({ size: 10, createdAt, status: "completed" })),
      240,
      10,
    );
    expect(chart.points.map((p) => p.x)).toEqual([0, 30, 240]);
  });

  test("one backup sits in the middle; none gives an empty chart", () => {
    expect(buildSizeChart([{ size: 5, createdAt: "2025-01-01T00:00:00Z", status: "completed" }], 100, 40).points[0]).toMatchObject({ x: 50, y: 0 });
    expect(buildSizeChart([], 100, 40)).toEqual({ points: [], maxSize: 0, path: "" });
  });
});
