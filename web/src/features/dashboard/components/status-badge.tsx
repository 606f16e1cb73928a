import { Badge } from "../../../components/ui/card";
import { Spinner } from "../../../components/ui/spinner";
import { cn } from "../../../lib/cn";
import { describeStatus, type StatusTone } from "../utils/operation-status";

export const TONE_CLASSES: Record<StatusTone, string> = {
  success: "bg-emerald-100 text-emerald-800",
  danger: "bg-red-100 text-red-800",
  warning: "bg-amber-100 text-amber-800",
  neutral: "bg-slate-100 text-slate-700",
};

/** A backup or restore status: green completed, red failed, yellow with a spinner while running. */
export function StatusBadge({ status }: { status: string }) {
  const look = describeStatus(status);
  return (
    <Badge className={cn("gap-1.5 whitespace-nowrap", TONE_CLASSES[look.tone])} data-status={status}>
      {look.spinning ? <Spinner className="h-3 w-3" /> : null}
      {look.label}
    </Badge>
  );
}
