import { cn } from "../../lib/cn";

/** A small spinning ring; decorative, so pair it with visible text. */
export function Spinner({ className }: { className?: string }) {
  return <span aria-hidden="true" className={cn("inline-block h-4 w-4 animate-spin rounded-full border-2 border-current border-r-transparent", className)} />;
}

/** The text shown while a guarded page waits for the session. */
export function LoadingScreen({ label = "Loading..." }: { label?: string }) {
  return (
    <div className="flex min-h-[40vh] items-center justify-center gap-3 text-slate-600" role="status">
      <Spinner className="h-5 w-5 text-indigo-600" />
      <span>{label}</span>
    </div>
  );
}
