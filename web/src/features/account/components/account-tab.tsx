import { type FormEvent, useState } from "react";
import { Button } from "../../../components/ui/button";
import { Field } from "../../../components/ui/field";
import { toast } from "../../../components/ui/toast-store";
import { readErrorMessage } from "../../../lib/api-client";
import { updateSessionUser } from "../../auth/session";
import { type Profile, updateProfileRequest } from "../api/account-api";
import { validateProfile } from "../utils/profile-validation";

/** Full name and e-mail address with Save Changes. */
export function AccountTab({ profile, onSaved }: { profile: Profile; onSaved: (changes: { name: string; email: string }) => void }) {
  const [name, setName] = useState(profile.name);
  const [email, setEmail] = useState(profile.email);
  const [errors, setErrors] = useState<{ name?: string; email?: string }>({});
  const [busy, setBusy] = useState(false);

  const onSubmit = async (event: FormEvent) => {
    event.preventDefault();
    const found = validateProfile({ name, email });
    setErrors(found);
    if (found.name || found.email) return;
    setBusy(true);
    try {
      const { data, error } = await updateProfileRequest({ name: name.trim(), email: email.trim() });
      if (error || !data) throw error ?? new Error("update failed");
      const saved = { name: data.user.name, email: data.user.email };
      updateSessionUser(saved);
      onSaved(saved);
      setName(saved.name);
      setEmail(saved.email);
      toast({ title: "Profile updated successfully!", variant: "success" });
    } catch (error) {
      toast({ title: readErrorMessage(error) ?? "Failed to update profile", variant: "destructive" });
    } finally {
      setBusy(false);
    }
  };

  return (
    <form onSubmit={onSubmit} noValidate className="max-w-xl space-y-5">
      <Field label="Full name" autoComplete="name" value={name} error={errors.name} onChange={(e) => setName(e.target.value)} />
      <Field label="Email address" type="email" autoComplete="email" value={email} error={errors.email} onChange={(e) => setEmail(e.target.value)} />
      <Button type="submit" disabled={busy}>
        {busy ? "Saving..." : "Save Changes"}
      </Button>
    </form>
  );
}
