import { buttonClasses } from "../../components/ui/button";
import { Icon } from "../../components/ui/icons";
import { COMMUNITY_INVITE_URL, COMMUNITY_NAME, SUPPORT_EMAIL } from "../../config/site";
import { usePageTitle } from "../../lib/page-title";

export default function ContactPage() {
  usePageTitle("Contact");
  return (
    <div className="bg-slate-50">
      <div className="mx-auto max-w-5xl px-4 py-16 sm:px-6 sm:py-24 lg:px-8">
        <div className="text-center">
          <h1 className="text-4xl font-extrabold tracking-tight text-slate-900">Contact us</h1>
          <p className="mt-4 text-lg text-slate-600">Questions, problems or ideas? We usually answer within one business day.</p>
        </div>
        <div className="mt-12 grid gap-6 md:grid-cols-2">
          <section aria-labelledby="email-support" className="flex flex-col rounded-2xl border border-slate-200 bg-white p-8 shadow-sm">
            <span className="inline-flex h-12 w-12 items-center justify-center rounded-xl bg-indigo-100 text-indigo-700">
              <Icon name="mail" className="h-6 w-6" />
            </span>
            <h2 id="email-support" className="mt-4 text-xl font-semibold text-slate-900">
              Email support
            </h2>
            <p className="mt-2 flex-1 text-slate-600">
              For account, billing and technical questions. Include your agent version and any error messages to help us help you faster.
            </p>
            <a href={`mailto:${SUPPORT_EMAIL}`} className={buttonClasses({ className: "mt-6" })}>
              {SUPPORT_EMAIL}
            </a>
          </section>
          <section aria-labelledby="community" className="flex flex-col rounded-2xl border border-slate-200 bg-white p-8 shadow-sm">
            <span className="inline-flex h-12 w-12 items-center justify-center rounded-xl bg-indigo-100 text-indigo-700">
              <Icon name="chat" className="h-6 w-6" />
            </span>
            <h2 id="community" className="mt-4 text-xl font-semibold text-slate-900">
              Join our community
            </h2>
            <p className="mt-2 flex-1 text-slate-600">
              Chat with other DBVault users, share setups, get quick answers and hear about new releases first in the {COMMUNITY_NAME} chat.
            </p>
            <a href={COMMUNITY_INVITE_URL} target="_blank" rel="noopener noreferrer" className={buttonClasses({ variant: "outline", className: "mt-6" })}>
              Join the community chat
            </a>
          </section>
        </div>
      </div>
    </div>
  );
}
