import { Link } from "wouter";
import { buttonClasses } from "../../components/ui/button";
import { Icon } from "../../components/ui/icons";
import { PRODUCT_FEATURES } from "../../features/marketing/content";
import { cn } from "../../lib/cn";
import { usePageTitle } from "../../lib/page-title";

export default function FeaturesPage() {
  usePageTitle("Features");
  return (
    <>
      <section className="bg-gradient-to-b from-indigo-50 to-white py-16 sm:py-24">
        <div className="mx-auto max-w-3xl px-4 text-center sm:px-6">
          <h1 className="text-4xl font-extrabold tracking-tight text-slate-900 sm:text-5xl">Features built for peace of mind</h1>
          <p className="mt-6 text-lg text-slate-600">
            Encryption at the source, a zero-knowledge design and restores you can rely on: everything DBVault does to keep your MongoDB data safe.
          </p>
        </div>
      </section>
      <div className="mx-auto max-w-6xl space-y-16 px-4 py-16 sm:px-6 lg:px-8">
        {PRODUCT_FEATURES.map((feature, index) => (
          <section key={feature.id} id={feature.id} aria-labelledby={`${feature.id}-title`} className="grid items-center gap-8 md:grid-cols-2">
            <div className={cn(index % 2 === 1 && "md:order-2")}>
              <span className="inline-flex h-12 w-12 items-center justify-center rounded-xl bg-indigo-100 text-indigo-700">
                <Icon name={feature.icon} className="h-6 w-6" />
              </span>
              <h2 id={`${feature.id}-title`} className="mt-4 text-2xl font-bold text-slate-900">
                {feature.title}
              </h2>
              <p className="mt-3 text-slate-600">{feature.summary}</p>
            </div>
            <ul className="space-y-3 rounded-xl border border-slate-200 bg-slate-50 p-6">
              {feature.points.map((point) => (
                <li key={point} className="flex gap-3 text-sm text-slate-700">
                  <Icon name="check" className="mt-0.5 h-4 w-4 shrink-0 text-emerald-600" />
                  {point}
                </li>
              ))}
            </ul>
          </section>
        ))}
      </div>
      <section className="bg-indigo-600">
        <div className="mx-auto max-w-4xl px-4 py-16 text-center sm:px-6">
          <h2 className="text-3xl font-bold text-white">Ready to protect your databases?</h2>
          <p className="mt-4 text-lg text-indigo-100">Create an account and connect your first database in minutes.</p>
          <Link href="/register" className={buttonClasses({ size: "lg", variant: "outline", className: "mt-8 border-white" })}>
            Start Free Trial
          </Link>
        </div>
      </section>
    </>
  );
}
