import { Link } from "wouter";
import { Alert } from "../../../components/ui/alert";
import { buttonClasses } from "../../../components/ui/button";
import { Icon } from "../../../components/ui/icons";
import { cn } from "../../../lib/cn";
import { type Plan, usePlans } from "../api/get-plans";
import { formatDatabaseLimit, formatFrequency, formatPitrWindow, formatPlanPrice, formatRetention, formatStorage } from "../../../lib/plan-format";

function PlanCard({ plan }: { plan: Plan }) {
  const price = formatPlanPrice(plan.price);
  const [amount, period] = price === "Free" ? ["Free", null] : price.split("/");
  return (
    <li
      className={cn(
        "relative flex flex-col rounded-2xl border bg-white p-6 shadow-sm",
        plan.popular ? "border-indigo-600 ring-2 ring-indigo-600" : "border-slate-200",
      )}
      data-testid="plan-card"
    >
      {plan.popular ? (
        <span className="absolute -top-3 left-1/2 -translate-x-1/2 rounded-full bg-indigo-600 px-3 py-1 text-xs font-semibold text-white">Popular</span>
      ) : null}
      <h3 className="text-lg font-semibold text-slate-900">{plan.name}</h3>
      <p className="mt-4 flex items-baseline gap-1">
        <span className="text-4xl font-bold tracking-tight text-slate-900">{amount}</span>
        {period ? <span className="text-sm text-slate-500">/{period}</span> : null}
      </p>
      <dl className="mt-6 space-y-2 border-y border-slate-100 py-4 text-sm">
        <div className="flex justify-between gap-2">
          <dt className="text-slate-500">Storage</dt>
          <dd className="font-medium text-slate-900">{formatStorage(plan.storageLimit)}</dd>
        </div>
        <div className="flex justify-between gap-2">
          <dt className="text-slate-500">Databases</dt>
          <dd className="font-medium text-slate-900">{formatDatabaseLimit(plan.dbLimit)}</dd>
        </div>
        <div className="flex justify-between gap-2">
          <dt className="text-slate-500">Retention up to</dt>
          <dd className="font-medium text-slate-900">{formatRetention(plan.retentionLimit)}</dd>
        </div>
        <div className="flex justify-between gap-2">
          <dt className="text-slate-500">Backups</dt>
          <dd className="font-medium text-slate-900">{formatFrequency(plan.frequencyLimit)}</dd>
        </div>
        <div className="flex justify-between gap-2">
          <dt className="text-slate-500">Point-in-time recovery</dt>
          <dd className="font-medium text-slate-900">{formatPitrWindow(plan.pitrWindowHours)}</dd>
        </div>
      </dl>
      <ul className="mt-4 flex-1 space-y-2 text-sm text-slate-700">
        {plan.features.map((feature, index) => (
          <li key={index} className="flex gap-2">
            <Icon name="check" className="mt-0.5 h-4 w-4 shrink-0 text-emerald-600" />
            <span>{feature.text}</span>
          </li>
        ))}
      </ul>
      <Link href="/register" className={buttonClasses({ variant: plan.popular ? "default" : "outline", className: "mt-6 w-full" })}>
        Get Started
      </Link>
    </li>
  );
}

/** The landing page's plans, from the public catalogue, in a 4-column grid. */
export function PricingSection() {
  const plans = usePlans();

  return (
    <section id="pricing" aria-labelledby="pricing-title" className="scroll-mt-32 bg-slate-50 py-20">
      <div className="mx-auto max-w-7xl px-4 sm:px-6 lg:px-8">
        <div className="mx-auto max-w-2xl text-center">
          <h2 id="pricing-title" className="text-3xl font-bold tracking-tight text-slate-900 sm:text-4xl">
            Simple, transparent pricing
          </h2>
          <p className="mt-4 text-lg text-slate-600">Pick the plan that fits your databases. Start free and upgrade when you grow.</p>
        </div>
        {plans.isError ? (
          <Alert className="mx-auto mt-10 max-w-md text-center">Failed to fetch plans</Alert>
        ) : plans.isPending ? (
          <div className="mt-12 grid gap-6 sm:grid-cols-2 lg:grid-cols-4" role="status" aria-label="Loading plans">
            {[0, 1, 2, 3].map((i) => (
              <div key={i} className="h-96 animate-pulse rounded-2xl bg-slate-200" />
            ))}
          </div>
        ) : (
          <ul className="mt-12 grid gap-6 sm:grid-cols-2 lg:grid-cols-4">
            {plans.data.map((plan) => (
              <PlanCard key={plan._id} plan={plan} />
            ))}
          </ul>
        )}
      </div>
    </section>
  );
}
