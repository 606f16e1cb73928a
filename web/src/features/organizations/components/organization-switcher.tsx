import { useAtomValue } from "jotai";
import { Select } from "../../../components/ui/select";
import { useMyOrganizations } from "../../../lib/api/get-organizations";
import { useSession } from "../../../lib/auth/use-session";
import { chooseOrganization, chosenOrganizationAtom } from "../../../lib/organization/chosen-organization";
import { ROLE_LABELS } from "../../../lib/organization/permissions";

/**
 * The navbar's organization switcher: only for a member of two or more organizations, so the
 * one-person app looks as it always did. Choosing one switches every call and socket to it.
 */
export function OrganizationSwitcher({ className }: { className?: string }) {
  const { isLoggedIn, user } = useSession();
  const choice = useAtomValue(chosenOrganizationAtom);
  const { data: organizations } = useMyOrganizations(isLoggedIn);
  if (!user || !organizations || organizations.length < 2) return null;
  const current = choice?.userId === user.id ? choice.organizationId : user.id;
  return (
    <Select
      compact
      aria-label="Organization"
      className={className}
      value={organizations.some((organization) => organization.id === current) ? current : user.id}
      onChange={(event) => chooseOrganization(event.target.value)}
    >
      {organizations.map((organization) => (
        <option key={organization.id} value={organization.id}>
          {organization.personal ? `${organization.name} (personal)` : organization.name} · {ROLE_LABELS[organization.role]}
        </option>
      ))}
    </Select>
  );
}
