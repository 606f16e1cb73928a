import { ProfilePage } from "../../features/account/components/profile-page";
import { TeamsSection } from "../../features/organizations/components/create-team-form";
import { usePageTitle } from "../../lib/page-title";

export default function ProfilePageRoute() {
  usePageTitle("My Profile");
  return <ProfilePage teams={<TeamsSection />} />;
}
