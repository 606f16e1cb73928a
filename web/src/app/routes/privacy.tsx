import { LegalPage } from "../../features/legal/components/legal-page";
import { PRIVACY_INTRO, PRIVACY_LAST_UPDATED, PRIVACY_SECTIONS } from "../../features/legal/privacy-sections";
import { usePageTitle } from "../../lib/page-title";

export default function PrivacyPage() {
  usePageTitle("Privacy Notice");
  return <LegalPage title="Privacy Notice" lastUpdated={PRIVACY_LAST_UPDATED} intro={PRIVACY_INTRO} sections={PRIVACY_SECTIONS} />;
}
