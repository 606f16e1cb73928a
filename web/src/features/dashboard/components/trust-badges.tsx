import { Button } from "../../../components/ui/button";
import { Badge } from "../../../components/ui/card";
import { Icon } from "../../../components/ui/icons";
import { Tooltip } from "../../../components/ui/tooltip";
import { cn } from "../../../lib/cn";
import type { Backup } from "../api/dashboard-api";
import { describePlaces } from "../utils/places-format";
import { describeVerification, labelAnomaly } from "../utils/trust-format";
import { TONE_CLASSES } from "./status-badge";

/** "Verified" (with the time, and the counts on hover), "Verification failed" (the reason on hover) or "Not verified". */
export function VerificationBadge({ backup }: { backup: Backup }) {
  const look = describeVerification(backup);
  if (!look) return null;
  return (
    <div className="flex flex-col items-start gap-0.5">
      <Tooltip
        content={
          <>
            <p className="font-medium">{look.detail}</p>
            {look.time ? (
              <p className="text-slate-300">
                {look.label === "Verified" ? "Verified" : "Checked"} {look.time}
              </p>
            ) : null}
            {look.lines.length > 0 ? (
              <ul className="mt-1 space-y-0.5 font-mono text-[11px]">
                {look.lines.map((line) => (
                  <li key={line}>{line}</li>
                ))}
              </ul>
            ) : null}
          </>
        }
      >
        <Badge className={cn("gap-1 whitespace-nowrap", TONE_CLASSES[look.tone])} data-testid="verification-badge" data-verification={look.label}>
          {look.tone === "success" ? <Icon name="shield" className="h-3 w-3" /> : null}
          {look.label}
        </Badge>
      </Tooltip>
      {look.time ? (
        <span className="text-[11px] text-slate-500" data-testid="verified-at">
          {look.time}
        </span>
      ) : null}
    </div>
  );
}

/** An unresolved (or resolved) anomaly: what dropped, on hover, and "Mark as expected" to let retention go back to normal. */
export function AnomalyBadge({ backup, onResolve }: { backup: Backup; onResolve: (backup: Backup) => void }) {
  if (!backup.anomaly) return null;
  const resolved = backup.anomalyResolvedAt !== null;
  return (
    <div className="flex flex-wrap items-center gap-1">
      <Tooltip
        content={
          <>
            <p className="font-medium">{backup.anomaly.detail}</p>
            <p className="mt-1 text-slate-300">
              {resolved ? "Marked as expected." : "Retention keeps the last good backup of this database until you mark this as expected."}
            </p>
          </>
        }
      >
        <Badge className={cn("whitespace-nowrap", resolved ? TONE_CLASSES.neutral : TONE_CLASSES.warning)} data-testid="anomaly-badge">
          {labelAnomaly(backup.anomaly.kind)}
          {resolved ? " (expected)" : ""}
        </Badge>
      </Tooltip>
      {resolved ? null : (
        <Button variant="link" size="sm" className="text-xs" onClick={() => onResolve(backup)}>
          Mark as expected
        </Button>
      )}
    </div>
  );
}

/** "2 places": DBVault's storage and each copy in the customer's own buckets (the list on hover). */
export function PlacesBadge({ backup }: { backup: Backup }) {
  const look = describePlaces(backup);
  if (!look) return null;
  return (
    <Tooltip
      content={
        <ul className="space-y-0.5">
          {look.lines.map((line) => (
            <li key={line}>{line}</li>
          ))}
        </ul>
      }
    >
      <Badge className={cn("whitespace-nowrap", TONE_CLASSES[look.tone])} data-testid="places-badge" data-places={look.label}>
        {look.label}
      </Badge>
    </Tooltip>
  );
}
