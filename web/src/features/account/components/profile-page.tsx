import { type ReactNode, useState } from "react";
import { Link } from "wouter";
import { Alert } from "../../../components/ui/alert";
import { Icon } from "../../../components/ui/icons";
import { LoadingScreen } from "../../../components/ui/spinner";
import { Tabs } from "../../../components/ui/tabs";
import { useProfileData } from "../hooks/use-profile-data";
import { AccountTab } from "./account-tab";
import { BillingTab } from "./billing-tab";
import { ProfileSecurityTab } from "./profile-security-tab";

const PROFILE_TABS = [
  { id: "account", label: "Account" },
  { id: "security", label: "Security" },
  { id: "billing", label: "Billing & Plan" },
] as const;
type ProfileTab = (typeof PROFILE_TABS)[number]["id"];

/** My Profile (spec 2, /profile): Account, Security, Billing & Plan. `teams`: shown under Account. */
export function ProfilePage({ teams = null }: { teams?: ReactNode }) {
  const [tab, setTab] = useState<ProfileTab>("account");
  const data = useProfileData();

  return (
    <div className="mx-auto max-w-7xl px-4 py-10 sm:px-6 lg:px-8">
      <Link href="/dashboard" className="keyboard-focus-ring inline-flex items-center gap-1 rounded text-sm font-medium text-indigo-600 hover:text-indigo-500">
        <Icon name="arrowLeft" className="h-4 w-4" /> Back to Dashboard
      </Link>
      <h1 className="mt-4 text-3xl font-bold tracking-tight text-slate-900">My Profile</h1>
      <p className="mt-1 text-slate-600">Your account, password and plan.</p>
      <div className="mt-8">
        {data.loadError ? (
          <Alert>Failed to load your profile. Please reload the page.</Alert>
        ) : !data.profile || !data.plan ? (
          <LoadingScreen label="Loading profile..." />
        ) : (
          <Tabs items={PROFILE_TABS} value={tab} onValueChange={setTab} label="Profile sections">
            {tab === "account" ? (
              <>
                <AccountTab profile={data.profile} />
                {teams}
              </>
            ) : null}
            {tab === "security" ? <ProfileSecurityTab apiKey={data.profile.apiKey} /> : null}
            {tab === "billing" ? <BillingTab plan={data.plan} plans={data.plans} plansError={data.plansError} /> : null}
          </Tabs>
        )}
      </div>
    </div>
  );
}
