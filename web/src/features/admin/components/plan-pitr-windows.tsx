// The admin console's plan editor for point-in-time recovery: each plan's window (shown on the
// pricing cards), changed one plan at a time; the server tells the plan's agents at once.
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { Button } from "../../../components/ui/button";
import { inputClasses } from "../../../components/ui/field";
import { toast } from "../../../components/ui/toast-store";
import { readErrorMessage } from "../../../lib/api-client";
import { formatPitrWindow } from "../../../lib/plan-format";
import { type AdminPlan, updatePlanPitrWindowRequest } from "../api/admin-api";

function PlanWindowRow({ plan }: { plan: AdminPlan }) {
  const queryClient = useQueryClient();
  const [hours, setHours] = useState(String(plan.pitrWindowHours));
  const save = useMutation({
    mutationFn: async () => {
      const { error } = await updatePlanPitrWindowRequest(plan._id, Number(hours));
      if (error) throw error;
    },
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: ["admin", "plans"] });
      toast({ title: `${plan.name}: point-in-time recovery ${formatPitrWindow(Number(hours))}`, variant: "success" });
    },
    onError: (error) =>
      toast({ title: `Could not change ${plan.name}'s point-in-time window`, description: readErrorMessage(error) ?? undefined, variant: "destructive" }),
  });
  const id = `pitr-window-${plan._id}`;
  return (
    <li className="flex flex-wrap items-center gap-3 py-2">
      <label htmlFor={id} className="w-28 font-medium text-slate-900">
        {plan.name}
      </label>
      {/* The input is full width by its classes: this box gives it its width. */}
      <div className="w-28">
        <input id={id} type="number" min={0} max={8760} step={1} value={hours} onChange={(event) => setHours(event.target.value)} className={inputClasses} />
      </div>
      <span className="text-sm text-slate-600">hours (0: not offered) · now {formatPitrWindow(plan.pitrWindowHours)}</span>
      <Button size="sm" variant="outline" disabled={save.isPending || hours === String(plan.pitrWindowHours)} onClick={() => save.mutate()}>
        Save
      </Button>
    </li>
  );
}

export function PlanPitrWindows({ plans }: { plans: AdminPlan[] }) {
  return (
    <section aria-labelledby="admin-plans-heading" className="mt-8">
      <h2 id="admin-plans-heading" className="text-lg font-semibold text-slate-900">
        Plans: point-in-time recovery window
      </h2>
      <ul className="mt-2 divide-y divide-slate-100">
        {plans.map((plan) => (
          <PlanWindowRow key={plan._id} plan={plan} />
        ))}
      </ul>
    </section>
  );
}
