import { type ButtonHTMLAttributes, forwardRef } from "react";
import { cn } from "../../lib/cn";

export type ButtonVariant = "default" | "destructive" | "success" | "outline" | "secondary" | "ghost" | "link" | "none";
export type ButtonSize = "default" | "sm" | "lg" | "icon" | "input";

// Full class strings (not assembled) so the UnoCSS extractor finds every one.
const VARIANTS: Record<ButtonVariant, string> = {
  default: "bg-indigo-600 text-white shadow-sm hover:bg-indigo-500",
  destructive: "bg-red-600 text-white shadow-sm hover:bg-red-500",
  success: "bg-emerald-600 text-white shadow-sm hover:bg-emerald-500",
  outline: "border border-slate-300 bg-white text-slate-800 shadow-sm hover:bg-slate-50",
  secondary: "bg-slate-100 text-slate-900 hover:bg-slate-200",
  ghost: "text-slate-700 hover:bg-slate-100 hover:text-slate-900",
  link: "text-indigo-600 underline-offset-4 hover:underline",
  none: "",
};

const SIZES: Record<ButtonSize, string> = {
  default: "h-10 px-4 py-2 text-sm",
  sm: "h-8 rounded-md px-3 text-xs",
  lg: "h-12 rounded-lg px-6 text-base",
  icon: "h-10 w-10",
  input: "h-10 px-3 text-sm",
};

const BASE =
  "inline-flex items-center justify-center gap-2 whitespace-nowrap rounded-md font-medium transition-colors disabled:pointer-events-none disabled:opacity-50 cursor-pointer";

/** The classes of a button, for links that look like one. */
export function buttonClasses(options: { variant?: ButtonVariant; size?: ButtonSize; className?: string } = {}): string {
  const { variant = "default", size = "default", className } = options;
  if (variant === "none") return cn(className);
  return cn(BASE, VARIANTS[variant], variant === "link" ? "h-auto px-0 py-0" : SIZES[size], className);
}

export type ButtonProps = ButtonHTMLAttributes<HTMLButtonElement> & { variant?: ButtonVariant; size?: ButtonSize };

export const Button = forwardRef<HTMLButtonElement, ButtonProps>(function Button(
  { variant = "default", size = "default", className, type = "button", ...props },
  ref,
) {
  return <button ref={ref} type={type} className={buttonClasses({ variant, size, className })} {...props} />;
});
