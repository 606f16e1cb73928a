import type { SelectHTMLAttributes } from "react";
import { cn } from "../../lib/cn";
import { inputClasses } from "./field";

const compactClasses = "rounded-md border border-slate-300 bg-white px-2 py-1 text-xs text-slate-900";

type SelectProps = SelectHTMLAttributes<HTMLSelectElement> & {
  /** The small variant that sits inside a table row. */
  compact?: boolean;
};

/** The app's drop-down: a native <select> styled as the form inputs are. */
export function Select({ compact, className, ...props }: SelectProps) {
  return <select className={cn(compact ? compactClasses : inputClasses, className)} {...props} />;
}
