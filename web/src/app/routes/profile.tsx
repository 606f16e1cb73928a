import { ProfilePage } from "../../features/account/components/profile-page";
import { usePageTitle } from "../../lib/page-title";

export default function ProfilePageRoute() {
  usePageTitle("My Profile");
  return <ProfilePage />;
}
