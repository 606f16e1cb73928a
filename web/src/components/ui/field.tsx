import { type InputHTMLAttributes, type ReactNode, type TextareaHTMLAttributes, useId } from "react";
import { cn } from "../../lib/cn";

export const inputClasses =
  "block w-full rounded-md border border-slate-300 bg-white px-3 py-2 text-sm text-slate-900 shadow-sm placeholder:text-slate-400 focus:border-indigo-500 disabled:bg-slate-100 aria-[invalid=true]:border-red-500";

type FieldProps = InputHTMLAttributes<HTMLInputElement> & {
  label: ReactNode;
  /** A validation message, shown under the field and announced with it. */
  error?: string | null;
  hint?: ReactNode;
  labelAction?: ReactNode;
  /** Classes for the input itself (className styles the whole field, label included). */
  inputClassName?: string;
};

/** A labelled input with its own validation message (linked with aria-describedby). */
export function Field({ label, error, hint, labelAction, id, className, inputClassName, ...props }: FieldProps) {
  const autoId = useId();
  const inputId = id ?? autoId;
  const messageId = `${inputId}-message`;
  const hintId = `${inputId}-hint`;
  const describedBy = [error ? messageId : null, hint ? hintId : null].filter(Boolean).join(" ") || undefined;
  return (
    <div className={className}>
      <div className="flex items-center justify-between">
        <label htmlFor={inputId} className="block text-sm font-medium text-slate-700">
          {label}
        </label>
        {labelAction}
      </div>
      <input
        id={inputId}
        aria-invalid={error ? true : undefined}
        aria-describedby={describedBy}
        className={cn(inputClasses, "mt-1", inputClassName)}
        {...props}
      />
      {hint && !error ? (
        <p id={hintId} className="mt-1 text-xs text-slate-500">
          {hint}
        </p>
      ) : null}
      {error ? (
        <p id={messageId} className="mt-1 text-sm text-red-600" data-field-error="">
          {error}
        </p>
      ) : null}
    </div>
  );
}

type TextAreaFieldProps = TextareaHTMLAttributes<HTMLTextAreaElement> & { label: ReactNode };

export function TextAreaField({ label, id, className, ...props }: TextAreaFieldProps) {
  const autoId = useId();
  const inputId = id ?? autoId;
  return (
    <div className={className}>
      <label htmlFor={inputId} className="block text-sm font-medium text-slate-700">
        {label}
      </label>
      <textarea id={inputId} className={cn(inputClasses, "mt-1 font-mono")} {...props} />
    </div>
  );
}
