import { cn } from "../../lib/cn";

const TONES = {
  indigo: "bg-indigo-600",
  green: "bg-emerald-500",
  amber: "bg-amber-500",
  red: "bg-red-500",
};

export type ProgressTone = keyof typeof TONES;

/** A horizontal bar for a 0–100 value, exposed to assistive technology as a progressbar. */
export function ProgressBar({ value, label, tone = "indigo", className }: { value: number; label: string; tone?: ProgressTone; className?: string }) {
  const clamped = Math.min(100, Math.max(0, Number.isFinite(value) ? value : 0));
  return (
    <div
      role="progressbar"
      aria-label={label}
      aria-valuemin={0}
      aria-valuemax={100}
      aria-valuenow={Math.round(clamped)}
      className={cn("h-2 w-full overflow-hidden rounded-full bg-slate-200", className)}
    >
      <div className={cn("h-full rounded-full transition-all", TONES[tone])} style={{ width: `${clamped}%` }} />
    </div>
  );
}
