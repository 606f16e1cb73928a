import { Badge } from "../../../components/ui/card";
import type { DisplayStatus } from "../utils/admin-users";

// Full class strings so the UnoCSS extractor finds them.
const TONES: Record<DisplayStatus, string> = {
  active: "bg-emerald-100 text-emerald-800",
  inactive: "bg-amber-100 text-amber-900",
  banned: "bg-red-100 text-red-800",
};

/** A user's displayed status (spec 2): banned, active or inactive. */
export function UserStatusBadge({ status }: { status: DisplayStatus }) {
  return <Badge className={TONES[status] ?? "bg-slate-100 text-slate-700"}>{status}</Badge>;
}
