import { SettingsPage } from "../../features/settings/components/settings-page";
import { TeamTab } from "../../features/organizations/components/team-tab";
import { useCurrentOrganization } from "../../lib/api/get-organizations";
import { usePageTitle } from "../../lib/page-title";

export default function SettingsPageRoute() {
  usePageTitle("Settings");
  const { organization, permissions } = useCurrentOrganization();
  const team = organization && !organization.personal ? <TeamTab key={organization.id} organization={organization} /> : null;
  return <SettingsPage team={team} administer={permissions.administer} />;
}
