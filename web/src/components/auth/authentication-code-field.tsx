import { Field } from "../ui/field";

/** The second factor's input: a 6-digit code from an authenticator app, or a recovery code. */
export function AuthenticationCodeField(props: { value: string; onChange: (value: string) => void; hint?: string; autoFocus?: boolean }) {
  return (
    <Field
      label="Authentication code"
      name="code"
      inputMode="numeric"
      autoComplete="one-time-code"
      autoFocus={props.autoFocus}
      value={props.value}
      onChange={(e) => props.onChange(e.target.value)}
      hint={props.hint ?? "The 6-digit code from your authenticator app, or a recovery code."}
    />
  );
}
