// The admin console's organizations (/admin/organizations): every personal and team organization
// with its members and their roles, its plan and the storage it uses; the plan is changed here
// per organization (a user's plan on the dashboard is their personal organization's).
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { Link } from "wouter";
import { Alert } from "../../../components/ui/alert";
import { Button, buttonClasses } from "../../../components/ui/button";
import { inputClasses } from "../../../components/ui/field";
import { LoadingScreen } from "../../../components/ui/spinner";
import { toast } from "../../../components/ui/toast-store";
import { readErrorMessage } from "../../../lib/api-client";
import { formatStorage } from "../../../lib/plan-format";
import { type AdminOrganization, type AdminPlan, changeOrganizationPlanRequest, listOrganizationsRequest } from "../api/admin-api";
import { expectData, useAdminPlans } from "../api/get-admin-dashboard";
import type { AdminError } from "../utils/admin-messages";

const ROLE_LABELS = { owner: "Owner", admin: "Admin", operator: "Operator", viewer: "Viewer" } as const;
const organizationsQueryKey = ["admin", "organizations"] as const;

function OrganizationPlan({ organization, plans }: { organization: AdminOrganization; plans: AdminPlan[] }) {
  const queryClient = useQueryClient();
  const [planId, setPlanId] = useState(organization.plan?._id ?? "");
  const save = useMutation({
    mutationFn: async () => {
      const { error } = await changeOrganizationPlanRequest(organization.id, planId);
      if (error) throw error;
    },
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: ["admin"] });
      toast({ title: `${organization.name} is now on ${plans.find((plan) => plan._id === planId)?.name ?? "the new plan"}`, variant: "success" });
    },
    onError: (error) =>
      toast({ title: `Could not change ${organization.name}'s plan`, description: readErrorMessage(error) ?? undefined, variant: "destructive" }),
  });
  const id = `organization-plan-${organization.id}`;
  return (
    <div className="flex flex-wrap items-center gap-2">
      <label htmlFor={id} className="sr-only">
        Plan of {organization.name}
      </label>
      <select id={id} value={planId} onChange={(event) => setPlanId(event.target.value)} className={`${inputClasses} w-40`}>
        {plans.map((plan) => (
          <option key={plan._id} value={plan._id}>
            {plan.name}
          </option>
        ))}
      </select>
      <Button size="sm" variant="outline" disabled={save.isPending || !planId || planId === organization.plan?._id} onClick={() => save.mutate()}>
        Change plan
      </Button>
    </div>
  );
}

export function AdminOrganizationsPage() {
  const organizations = useQuery<AdminOrganization[], AdminError>({
    queryKey: organizationsQueryKey,
    queryFn: () => expectData(listOrganizationsRequest, "Failed to load organizations"),
  });
  const plans = useAdminPlans();
  if (organizations.isPending || plans.isPending) return <LoadingScreen label="Loading organizations..." />;
  const error = organizations.error ?? plans.error;

  return (
    <div className="mx-auto max-w-7xl px-4 py-10 sm:px-6 lg:px-8">
      <div className="flex flex-wrap items-center justify-between gap-4">
        <div>
          <h1 className="text-3xl font-bold tracking-tight text-slate-900">Organizations</h1>
          <p className="mt-1 text-slate-600">Every account's personal organization and every team, with members, plan and storage.</p>
        </div>
        <Link href="/admin" className={buttonClasses({ variant: "outline" })}>
          Admin Dashboard
        </Link>
      </div>
      {error ? (
        <Alert title={error.message} className="mt-6">
          {error.detail}
        </Alert>
      ) : null}
      <div className="relative mt-8 overflow-x-auto rounded-xl border border-slate-200">
        <table className="min-w-full divide-y divide-slate-200 text-sm">
          <thead className="bg-slate-50 text-left text-slate-600">
            <tr>
              <th scope="col" className="px-4 py-3 font-medium">
                Organization
              </th>
              <th scope="col" className="px-4 py-3 font-medium">
                Members
              </th>
              <th scope="col" className="px-4 py-3 font-medium">
                Storage used
              </th>
              <th scope="col" className="px-4 py-3 font-medium">
                Plan
              </th>
            </tr>
          </thead>
          <tbody className="divide-y divide-slate-100">
            {(organizations.data ?? []).map((organization) => (
              <tr key={organization.id} className="align-top">
                <td className="px-4 py-3">
                  <div className="font-medium text-slate-900">{organization.name}</div>
                  <div className="text-xs text-slate-500">{organization.personal ? "Personal" : "Team"}</div>
                </td>
                <td className="px-4 py-3">
                  <ul className="space-y-1">
                    {organization.members.map((member) => (
                      <li key={member.id}>
                        <span className="text-slate-900">{member.name || member.email}</span>{" "}
                        <span className="text-slate-500">
                          {member.email} · {ROLE_LABELS[member.role]}
                        </span>
                      </li>
                    ))}
                  </ul>
                </td>
                <td className="px-4 py-3 text-slate-700">{formatStorage(organization.storageUsed)}</td>
                <td className="px-4 py-3">
                  <OrganizationPlan organization={organization} plans={plans.data ?? []} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </div>
  );
}
