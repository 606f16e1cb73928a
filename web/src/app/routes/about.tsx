import { Link } from "wouter";
import { buttonClasses } from "../../components/ui/button";
import { Icon, type IconName } from "../../components/ui/icons";
import { usePageTitle } from "../../lib/page-title";

const VALUES: { icon: IconName; title: string; text: string }[] = [
  {
    icon: "shield",
    title: "Trust",
    text: "Your data is yours. We built DBVault so that we never hold your keys or connection strings, and we are open about how it works.",
  },
  {
    icon: "bulb",
    title: "Innovation",
    text: "Backups should be boring for you, not for us. We keep improving speed, verification and restore tooling so recovery just works.",
  },
  {
    icon: "heart",
    title: "Customer Focus",
    text: "Every feature starts with a real question from someone running MongoDB in production. Support is answered by the person who builds the product.",
  },
];

export default function AboutPage() {
  usePageTitle("About");
  return (
    <>
      <section className="bg-gradient-to-b from-indigo-50 to-white py-16 sm:py-24">
        <div className="mx-auto max-w-3xl px-4 text-center sm:px-6">
          <h1 className="text-4xl font-extrabold tracking-tight text-slate-900 sm:text-5xl">About DBVault</h1>
          <p className="mt-6 text-lg text-slate-600">Secure, zero-knowledge backups for MongoDB, built by one engineer who needed them.</p>
        </div>
      </section>

      <section aria-labelledby="story-title" className="mx-auto max-w-3xl px-4 py-12 sm:px-6">
        <h2 id="story-title" className="text-2xl font-bold text-slate-900">
          Our story
        </h2>
        <div className="mt-4 space-y-4 text-slate-700">
          <p>
            DBVault started after a long night spent recovering a production MongoDB database from a backup that turned out to be incomplete. The backup tools
            that existed either needed full access to the database from someone else's cloud, or left encryption and verification as an exercise for the reader.
          </p>
          <p>
            So the idea was simple: run the backup where the data already lives, encrypt it there with a key that never leaves the server, and let the service
            handle only what it must: scheduling, storage, history and restores. That is the zero-knowledge design DBVault still follows today.
          </p>
          <p>
            DBVault is run by a single person. That keeps the product focused and means the person answering your support e-mail is the one who wrote the code.
            There are no investors to please, only customers whose data has to be safe.
          </p>
        </div>
      </section>

      <section aria-labelledby="values-title" className="bg-slate-50 py-16">
        <div className="mx-auto max-w-6xl px-4 sm:px-6 lg:px-8">
          <h2 id="values-title" className="text-center text-2xl font-bold text-slate-900">
            Our values
          </h2>
          <ul className="mt-10 grid gap-6 md:grid-cols-3">
            {VALUES.map((value) => (
              <li key={value.title} className="rounded-xl border border-slate-200 bg-white p-6">
                <span className="inline-flex h-10 w-10 items-center justify-center rounded-lg bg-indigo-100 text-indigo-700">
                  <Icon name={value.icon} />
                </span>
                <h3 className="mt-4 text-lg font-semibold text-slate-900">{value.title}</h3>
                <p className="mt-2 text-sm text-slate-600">{value.text}</p>
              </li>
            ))}
          </ul>
        </div>
      </section>

      <section aria-labelledby="team-title" className="mx-auto max-w-3xl px-4 py-16 sm:px-6">
        <h2 id="team-title" className="text-2xl font-bold text-slate-900">
          The team
        </h2>
        <div className="mt-6 flex flex-col gap-6 rounded-xl border border-slate-200 p-6 sm:flex-row sm:items-center">
          <span aria-hidden="true" className="flex h-20 w-20 shrink-0 items-center justify-center rounded-full bg-indigo-600 text-2xl font-bold text-white">
            DB
          </span>
          <div>
            <p className="text-lg font-semibold text-slate-900">Founder &amp; engineer</p>
            <p className="mt-2 text-slate-600">
              One person designs, builds, operates and supports DBVault: the agent, the encryption format, the service and this website. A small team by choice,
              with a long-term commitment to keeping your backups safe.
            </p>
          </div>
        </div>
        <div className="mt-10 flex flex-col gap-3 sm:flex-row">
          <Link href="/features" className={buttonClasses()}>
            Explore features
          </Link>
          <Link href="/contact" className={buttonClasses({ variant: "outline" })}>
            Contact us
          </Link>
        </div>
      </section>
    </>
  );
}
