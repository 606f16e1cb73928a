// Geometry of the backup-size chart: completed backups of one database, oldest to newest.

export type SizePoint = { x: number; y: number; size: number; at: string };
export type SizeChart = { points: SizePoint[]; maxSize: number; path: string };

/**
 * Places each completed backup on a width×height plot (time on x, size on y, 0 at the bottom).
 * Backups are spaced by time; with one backup, or all at one instant, it sits in the middle.
 */
export function buildSizeChart(backups: Array<{ size: number; createdAt: string; status: string }>, width: number, height: number): SizeChart {
  const done = backups
    .filter((b) => b.status === "completed")
    .map((b) => ({ size: b.size, at: b.createdAt, time: Date.parse(b.createdAt) }))
    .filter((b) => Number.isFinite(b.time))
    .sort((a, b) => a.time - b.time);
  const maxSize = Math.max(0, ...done.map((b) => b.size));
  const first = done[0]?.time ?? 0;
  const span = (done.at(-1)?.time ?? 0) - first;
  const points = done.map((b) => ({
    x: span > 0 ? ((b.time - first) / span) * width : width / 2,
    y: maxSize > 0 ? height - (b.size / maxSize) * height : height,
    size: b.size,
    at: b.at,
  }));
  const path = points.map((p, i) => `${i === 0 ? "M" : "L"}${p.x.toFixed(1)},${p.y.toFixed(1)}`).join(" ");
  return { points, maxSize, path };
}
