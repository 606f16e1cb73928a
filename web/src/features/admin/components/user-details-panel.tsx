import { type ReactNode, type Ref, useId, useState } from "react";
import { Button } from "../../../components/ui/button";
import { Card } from "../../../components/ui/card";
import { Field } from "../../../components/ui/field";
import type { AdminAgent, AdminPlan, AdminUser, UserUpdate } from "../api/admin-api";
import { describeBackupProtection, displayStatusOf, emailToSave } from "../utils/admin-users";
import { formatDateTime } from "../../../lib/format-date";
import { describePlanLimits } from "../utils/plan-limits";
import { UserAgentsList } from "./user-agents-list";
import { UserBanSection } from "./user-ban-section";
import { UserStatusBadge } from "./user-status-badge";
import { Select } from "../../../components/ui/select";

function SelectField({
  label,
  value,
  disabled,
  onChange,
  children,
}: {
  label: string;
  value: string;
  disabled: boolean;
  onChange: (value: string) => void;
  children: ReactNode;
}) {
  const id = useId();
  return (
    <div>
      <label htmlFor={id} className="block text-sm font-medium text-slate-700">
        {label}
      </label>
      <Select id={id} value={value} disabled={disabled} onChange={(event) => onChange(event.target.value)} className="mt-1">
        {children}
      </Select>
    </div>
  );
}

type Actions = {
  busy: boolean;
  onUpdate: (change: UserUpdate) => Promise<boolean>;
  onSaveEmail: (email: string) => Promise<boolean>;
  onBan: (reason: string) => Promise<boolean>;
  onUnban: () => Promise<boolean>;
  onDeleteAgent: (agent: AdminAgent) => void;
  onDeleteUser: () => void;
};

type Props = Actions & { user: AdminUser; plans: AdminPlan[]; agents: AdminAgent[] | null };

/** User Details (spec 2): read-only name, email, role, status, plan with its limits, ban, agents, delete. */
export function UserDetailsPanel({ user, plans, agents, busy, onUpdate, onSaveEmail, onBan, onUnban, onDeleteAgent, onDeleteUser }: Props) {
  // The panel is keyed by user, so this starts from the selected user's address.
  const [email, setEmail] = useState(user.email);
  const planId = user.plan?._id ?? "";
  const plan = plans.find((entry) => entry._id === planId) ?? user.plan;

  return (
    <div className="space-y-5">
      <div className="flex items-center justify-between gap-3">
        <Field label="Name" value={user.name} readOnly className="flex-1" />
        <div className="pt-6">
          <UserStatusBadge status={displayStatusOf(user)} />
        </div>
      </div>

      <form
        className="flex items-end gap-2"
        onSubmit={async (event) => {
          event.preventDefault();
          const value = emailToSave(email);
          if (value !== null && (await onSaveEmail(value))) setEmail(value);
        }}
      >
        {/* Text rather than type=email: Chromium hides the spaces of an email input, so the trimming
            the save applies (spec 5) would not show. The server validates the address. */}
        <Field
          label="Email"
          type="text"
          inputMode="email"
          spellCheck={false}
          value={email}
          onChange={(event) => setEmail(event.target.value)}
          className="flex-1"
          autoComplete="off"
        />
        <Button type="submit" disabled={busy || emailToSave(email) === null}>
          Save
        </Button>
      </form>

      <div className="grid gap-4 sm:grid-cols-2">
        <SelectField label="Role" value={user.role} disabled={busy} onChange={(role) => void onUpdate({ role: role as UserUpdate["role"] })}>
          <option value="user">User</option>
          <option value="admin">Admin</option>
        </SelectField>
        <SelectField
          label="Status"
          value={user.status || "active"}
          disabled={busy}
          onChange={(status) => void onUpdate({ status: status as UserUpdate["status"] })}
        >
          <option value="active">Active</option>
          <option value="inactive">Inactive</option>
        </SelectField>
      </div>

      <div>
        <SelectField label="Plan" value={planId} disabled={busy} onChange={(id) => void onUpdate({ plan: id })}>
          {planId === "" ? (
            <option value="" disabled>
              No plan
            </option>
          ) : null}
          {plans.map((entry) => (
            <option key={entry._id} value={entry._id}>
              {entry.name}
            </option>
          ))}
        </SelectField>
        {plan ? (
          <dl className="mt-3 grid grid-cols-2 gap-3 rounded-lg bg-slate-50 p-3 text-sm" aria-label="Plan limits">
            {describePlanLimits(plan).map((limit) => (
              <div key={limit.label}>
                <dt className="text-xs font-medium uppercase tracking-wide text-slate-500">{limit.label}</dt>
                <dd className="mt-0.5 font-medium text-slate-900">{limit.value}</dd>
              </div>
            ))}
          </dl>
        ) : null}
      </div>

      <p className="text-sm text-slate-700" data-testid="admin-backup-protection">
        <span className="font-medium text-slate-900">Protect backups:</span> {describeBackupProtection(user.backupProtection, formatDateTime)}
        {user.backupProtection.state === "off" ? null : ". Its backups and the account cannot be deleted early, from here either."}
      </p>

      <UserBanSection user={user} busy={busy} onBan={onBan} onUnban={onUnban} />
      <UserAgentsList agents={agents} busy={busy} onDelete={onDeleteAgent} />

      <div className="border-t border-slate-200 pt-5">
        <Button variant="destructive" disabled={busy} onClick={onDeleteUser}>
          Delete User
        </Button>
      </div>
    </div>
  );
}

/** The panel's frame: 'Select a user from the list.' until one is selected. */
export function UserDetailsCard({ children, ref }: { children: ReactNode; ref?: Ref<HTMLDivElement> }) {
  return (
    <Card ref={ref} className="p-6" role="region" aria-labelledby="admin-user-details-heading">
      <h2 id="admin-user-details-heading" className="text-lg font-semibold text-slate-900">
        User Details
      </h2>
      <div className="mt-4">{children ?? <p className="text-sm text-slate-500">Select a user from the list.</p>}</div>
    </Card>
  );
}
