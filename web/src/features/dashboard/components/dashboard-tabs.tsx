import { type ReactNode, useId, useRef } from "react";
import { cn } from "../../../lib/cn";
import type { DashboardTab } from "../stores/dashboard-atoms";

const TABS: Array<{ id: DashboardTab; label: string }> = [
  { id: "backups", label: "Backups" },
  { id: "restores", label: "Restore History" },
];

/** The Backups / Restore History tabs (WAI-ARIA tabs: arrow keys move between them). */
export function DashboardTabs({ tab, onChange, children }: { tab: DashboardTab; onChange: (tab: DashboardTab) => void; children: ReactNode }) {
  const baseId = useId();
  const refs = useRef<Array<HTMLButtonElement | null>>([]);
  const move = (index: number) => {
    const next = TABS[(index + TABS.length) % TABS.length]!;
    onChange(next.id);
    refs.current[(index + TABS.length) % TABS.length]?.focus();
  };
  return (
    <div>
      <div role="tablist" aria-label="Dashboard sections" className="flex gap-1 border-b border-slate-200 px-3">
        {TABS.map((item, index) => {
          const active = item.id === tab;
          return (
            <button
              key={item.id}
              ref={(element) => {
                refs.current[index] = element;
              }}
              type="button"
              role="tab"
              id={`${baseId}-${item.id}`}
              aria-selected={active}
              aria-controls={`${baseId}-panel`}
              tabIndex={active ? 0 : -1}
              onClick={() => onChange(item.id)}
              onKeyDown={(event) => {
                if (event.key === "ArrowRight") move(index + 1);
                if (event.key === "ArrowLeft") move(index - 1);
              }}
              className={cn(
                "keyboard-focus-ring -mb-px border-b-2 px-4 py-3 text-sm font-medium",
                active ? "border-indigo-600 text-indigo-700" : "border-transparent text-slate-600 hover:text-slate-900",
              )}
            >
              {item.label}
            </button>
          );
        })}
      </div>
      <div role="tabpanel" id={`${baseId}-panel`} aria-labelledby={`${baseId}-${tab}`}>
        {children}
      </div>
    </div>
  );
}
