import { Link } from "wouter";
import { buttonClasses } from "../../components/ui/button";
import { Icon } from "../../components/ui/icons";
import { HashLink } from "../../components/navigation/hash-link";
import { PRODUCT_FEATURES } from "../../features/marketing/content";
import { PricingSection } from "../../features/marketing/components/pricing-section";
import { BACKUP_DEMO, RESTORE_DEMO, TerminalDemo } from "../../features/marketing/components/terminal-demo";
import { usePageTitle } from "../../lib/page-title";

const STEPS = [
  { title: "Install the agent", text: "One small program on the server next to your database." },
  { title: "Connect your databases", text: "Connection strings and the encryption key stay in its local config." },
  { title: "Backups run on schedule", text: "Dumped, encrypted with AES-256 and uploaded. Restore in one click." },
];

function HowItWorks() {
  return (
    <ol className="space-y-4 rounded-2xl border border-slate-200 bg-white p-6 shadow-xl sm:p-8" aria-label="How it works">
      {STEPS.map((step, index) => (
        <li key={step.title} className="flex gap-4">
          <span className="flex h-9 w-9 shrink-0 items-center justify-center rounded-full bg-indigo-600 font-semibold text-white">{index + 1}</span>
          <div>
            <p className="font-semibold text-slate-900">{step.title}</p>
            <p className="mt-1 text-sm text-slate-600">{step.text}</p>
          </div>
        </li>
      ))}
      <li className="flex items-center gap-3 rounded-lg bg-emerald-50 px-4 py-3 text-sm font-medium text-emerald-800">
        <Icon name="shield" className="h-5 w-5" /> Your key never leaves your server
      </li>
    </ol>
  );
}

export default function LandingPage() {
  usePageTitle("Secure MongoDB Backups");
  return (
    <>
      <section className="relative overflow-hidden bg-gradient-to-b from-indigo-50 via-white to-white">
        <div className="mx-auto grid max-w-7xl items-center gap-12 px-4 pb-20 pt-16 sm:px-6 lg:grid-cols-2 lg:px-8 lg:pt-24">
          <div>
            <p className="inline-flex items-center gap-2 rounded-full bg-indigo-100 px-3 py-1 text-sm font-medium text-indigo-700">
              <Icon name="lock" className="h-4 w-4" /> Zero-knowledge MongoDB backups
            </p>
            <h1 className="mt-6 text-4xl font-extrabold tracking-tight text-slate-900 sm:text-5xl lg:text-6xl">
              Encrypted backups for your MongoDB, <span className="text-indigo-600">on autopilot</span>
            </h1>
            <p className="mt-6 max-w-xl text-lg text-slate-600">
              DBVault backs up your databases on a schedule. A lightweight agent on your server dumps, encrypts with AES-256 and uploads, so we never see your
              data, your connection strings or your keys.
            </p>
            <div className="mt-8 flex flex-col gap-3 sm:flex-row">
              <Link href="/register" className={buttonClasses({ size: "lg" })}>
                Start your free trial
              </Link>
              <HashLink href="/#pricing" className={buttonClasses({ size: "lg", variant: "outline" })}>
                See pricing
              </HashLink>
            </div>
            <p className="mt-4 text-sm text-slate-500">Free plan available. No credit card needed to start.</p>
          </div>
          <HowItWorks />
        </div>
      </section>

      <section aria-labelledby="features-title" className="py-20">
        <div className="mx-auto max-w-7xl px-4 sm:px-6 lg:px-8">
          <div className="mx-auto max-w-2xl text-center">
            <h2 id="features-title" className="text-3xl font-bold tracking-tight text-slate-900 sm:text-4xl">
              Everything you need to sleep at night
            </h2>
            <p className="mt-4 text-lg text-slate-600">Scheduled, encrypted, verifiable backups with restores you can trust.</p>
          </div>
          <ul className="mt-14 grid gap-8 sm:grid-cols-2 lg:grid-cols-4">
            {PRODUCT_FEATURES.map((feature) => (
              <li key={feature.id} className="rounded-xl border border-slate-200 p-6">
                <span className="inline-flex h-10 w-10 items-center justify-center rounded-lg bg-indigo-100 text-indigo-700">
                  <Icon name={feature.icon} />
                </span>
                <h3 className="mt-4 font-semibold text-slate-900">{feature.title}</h3>
                <p className="mt-2 text-sm text-slate-600">{feature.summary}</p>
              </li>
            ))}
          </ul>
          <p className="mt-10 text-center">
            <Link href="/features" className="font-medium text-indigo-600 hover:text-indigo-500">
              Explore all features →
            </Link>
          </p>
        </div>
      </section>

      <section aria-labelledby="demo-title" className="bg-slate-900 py-20 text-white">
        <div className="mx-auto max-w-7xl px-4 sm:px-6 lg:px-8">
          <div className="mx-auto max-w-2xl text-center">
            <h2 id="demo-title" className="text-3xl font-bold tracking-tight sm:text-4xl">
              See a backup and a restore
            </h2>
            <p className="mt-4 text-lg text-slate-300">The agent does the work on your server. The dashboard shows progress as it happens.</p>
          </div>
          <div className="mt-12 grid gap-8 lg:grid-cols-2">
            <div>
              <h3 className="mb-3 text-sm font-semibold uppercase tracking-wide text-indigo-300">Backup</h3>
              <TerminalDemo title="backup — production-db" lines={BACKUP_DEMO} />
            </div>
            <div>
              <h3 className="mb-3 text-sm font-semibold uppercase tracking-wide text-indigo-300">Restore</h3>
              <TerminalDemo title="restore — production-db" lines={RESTORE_DEMO} />
            </div>
          </div>
        </div>
      </section>

      <PricingSection />

      <section aria-labelledby="cta-title" className="bg-indigo-600">
        <div className="mx-auto max-w-4xl px-4 py-16 text-center sm:px-6 lg:px-8">
          <h2 id="cta-title" className="text-3xl font-bold tracking-tight text-white sm:text-4xl">
            Protect your data today
          </h2>
          <p className="mt-4 text-lg text-indigo-100">Set up the agent in minutes and get your first encrypted backup right away.</p>
          <Link href="/register" className={buttonClasses({ size: "lg", variant: "outline", className: "mt-8 border-white" })}>
            Start your free trial
          </Link>
        </div>
      </section>
    </>
  );
}
