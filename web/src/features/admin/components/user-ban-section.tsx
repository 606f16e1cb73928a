import { useState } from "react";
import { Button } from "../../../components/ui/button";
import { askConfirmation } from "../../../components/ui/confirm-dialog";
import { Field } from "../../../components/ui/field";
import { formatDateTime } from "../../../lib/format-date";
import type { AdminUser } from "../api/admin-api";
import { banReasonToSend } from "../utils/admin-users";

type Props = { user: AdminUser; busy: boolean; onBan: (reason: string) => Promise<boolean>; onUnban: () => Promise<boolean> };

/** Ban with an optional reason ('Policy violation' when blank), or Unban showing the reason (spec 2). */
export function UserBanSection({ user, busy, onBan, onUnban }: Props) {
  const [reason, setReason] = useState("");

  return (
    <section aria-labelledby="admin-ban-heading" className="border-t border-slate-200 pt-5">
      <h3 id="admin-ban-heading" className="text-sm font-semibold text-slate-900">
        Ban / Unban
      </h3>
      {user.isBanned ? (
        <div className="mt-3 space-y-3">
          <p className="text-sm text-slate-700" data-testid="ban-reason">
            Reason: {user.banReason || "No reason provided"}
          </p>
          {user.bannedAt ? <p className="text-xs text-slate-500">Banned {formatDateTime(user.bannedAt)}</p> : null}
          <Button variant="success" size="sm" disabled={busy} onClick={() => void onUnban()}>
            Unban
          </Button>
        </div>
      ) : (
        <form
          className="mt-3 flex flex-col gap-3 sm:flex-row sm:items-end"
          onSubmit={async (event) => {
            event.preventDefault();
            const confirmed = await askConfirmation({
              title: `Ban ${user.name || user.email}?`,
              message: `They can no longer use DBVault and are shown the reason: "${banReasonToSend(reason)}". You can unban them later.`,
              confirmLabel: "Ban",
              variant: "destructive",
            });
            if (confirmed && (await onBan(reason))) setReason("");
          }}
        >
          <Field
            label="Ban reason (optional)"
            className="flex-1"
            value={reason}
            maxLength={500}
            placeholder="Policy violation"
            onChange={(event) => setReason(event.target.value)}
          />
          <Button type="submit" variant="destructive" disabled={busy}>
            Ban
          </Button>
        </form>
      )}
    </section>
  );
}
