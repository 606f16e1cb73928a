import { LegalPage } from "../../features/legal/components/legal-page";
import { TERMS_INTRO, TERMS_LAST_UPDATED, TERMS_SECTIONS } from "../../features/legal/terms-sections";
import { usePageTitle } from "../../lib/page-title";

export default function TermsPage() {
  usePageTitle("Terms of Service");
  return <LegalPage title="Terms of Service" lastUpdated={TERMS_LAST_UPDATED} intro={TERMS_INTRO} sections={TERMS_SECTIONS} />;
}
