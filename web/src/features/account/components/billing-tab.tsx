import { formatBytes } from "@protocol/format";
import { Alert } from "../../../components/ui/alert";
import { Button } from "../../../components/ui/button";
import { Badge, Card } from "../../../components/ui/card";
import { askConfirmation } from "../../../components/ui/confirm-dialog";
import { Icon } from "../../../components/ui/icons";
import { toast } from "../../../components/ui/toast-store";
import { readErrorMessage } from "../../../lib/api-client";
import { cn } from "../../../lib/cn";
import { formatPercent } from "../../../lib/format-percent";
import type { Plan, UserPlan } from "../api/account-api";
import { useSwitchPlan } from "../api/account-mutations";
import { canSwitchToPlan, computeStoragePercent, describePlanLimits, formatPlanPrice, storageBarTone } from "../utils/plan-display";

// Full class strings here (a .tsx file) so the UnoCSS extractor finds every one.
const BAR_CLASSES = { red: "bg-red-500", amber: "bg-amber-500", green: "bg-emerald-500" };

type BillingTabProps = { plan: UserPlan; plans: Plan[] | null; plansError: boolean };

/** The current plan, storage used against its limit, and the plan cards (free ones switchable). */
export function BillingTab({ plan, plans, plansError }: BillingTabProps) {
  const switching = useSwitchPlan();
  const busyId = switching.isPending ? (switching.variables ?? null) : null;
  const percent = computeStoragePercent(plan.storageUsed, plan.storageLimit);

  const switchTo = async (target: Plan) => {
    // Leaving a paid plan is one click away from losing its limits, and coming back goes through support.
    const leavingPaid = (plans?.find((p) => p.id === plan.id)?.price ?? 0) > 0;
    if (leavingPaid) {
      const confirmed = await askConfirmation({
        title: `Switch to ${target.name}?`,
        message: `The ${target.name} plan's limits apply at once: ${describePlanLimits(target).join(", ")}. Moving back to ${plan.name} goes through support.`,
        confirmLabel: `Switch to ${target.name}`,
        variant: "destructive",
      });
      if (!confirmed) return;
    }
    switching.mutate(target.id, {
      onSuccess: () => toast({ title: `Plan updated to ${target.name}!`, variant: "success" }),
      onError: (error) => toast({ title: readErrorMessage(error) ?? "Failed to update plan", variant: "destructive" }),
    });
  };

  return (
    <div className="space-y-8">
      <Card className="p-6">
        <p className="text-sm text-slate-500">Current plan</p>
        <p className="mt-1 text-2xl font-bold text-slate-900" data-testid="current-plan">
          {plan.name}
        </p>
        <div className="mt-5">
          <div className="flex justify-between text-sm">
            <span id="storage-label" className="font-medium text-slate-700">
              Storage used
            </span>
            <span className="text-slate-600">
              {formatBytes(plan.storageUsed)} of {formatBytes(plan.storageLimit)} ({formatPercent(percent)})
            </span>
          </div>
          <div
            role="progressbar"
            aria-labelledby="storage-label"
            aria-valuemin={0}
            aria-valuemax={100}
            aria-valuenow={Math.round(percent)}
            className="mt-2 h-3 overflow-hidden rounded-full bg-slate-200"
          >
            <div className={cn("h-full rounded-full", BAR_CLASSES[storageBarTone(percent)])} style={{ width: `${percent}%` }} />
          </div>
        </div>
      </Card>

      <section aria-labelledby="plans-heading">
        <h2 id="plans-heading" className="text-lg font-semibold text-slate-900">
          Plans
        </h2>
        <p className="mt-1 text-sm text-slate-600">Free plans can be switched here. To move to a paid plan, please contact support.</p>
        {plansError ? <Alert className="mt-4">Failed to fetch plans</Alert> : null}
        <div className="mt-4 grid gap-4 sm:grid-cols-2 lg:grid-cols-4">
          {(plans ?? []).map((card) => {
            const current = card.id === plan.id;
            return (
              <Card
                key={card.id}
                className={cn("flex flex-col p-5", current && "border-indigo-500 ring-1 ring-indigo-500")}
                role="group"
                aria-label={`${card.name} plan`}
              >
                <div className="flex items-center justify-between gap-2">
                  <h3 className="font-semibold text-slate-900">{card.name}</h3>
                  {card.popular ? <Badge className="bg-indigo-100 text-indigo-800">Popular</Badge> : null}
                </div>
                <p className="mt-2 text-2xl font-bold text-slate-900">{formatPlanPrice(card.price)}</p>
                <ul className="mt-4 flex-1 space-y-1.5 text-sm text-slate-700">
                  {describePlanLimits(card).map((line) => (
                    <li key={line} className="flex items-center gap-2">
                      <Icon name="check" className="h-4 w-4 text-emerald-600" /> {line}
                    </li>
                  ))}
                </ul>
                <div className="mt-5">
                  {current ? (
                    <Badge className="bg-emerald-100 text-emerald-800">Current Plan</Badge>
                  ) : canSwitchToPlan(card) ? (
                    <Button className="w-full" disabled={busyId !== null} onClick={() => switchTo(card)}>
                      {busyId === card.id ? "Switching..." : `Switch to ${card.name}`}
                    </Button>
                  ) : (
                    <Button className="w-full" variant="outline" disabled title="Paid plans are changed through support">
                      Contact support to upgrade
                    </Button>
                  )}
                </div>
              </Card>
            );
          })}
        </div>
      </section>
    </div>
  );
}
