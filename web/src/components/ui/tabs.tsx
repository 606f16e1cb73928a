import { type KeyboardEvent, type ReactNode, useId, useRef } from "react";
import { cn } from "../../lib/cn";
import { Select } from "./select";

export type TabItem<T extends string> = { id: T; label: string };

type TabsProps<T extends string> = {
  items: readonly TabItem<T>[];
  value: T;
  onValueChange: (value: T) => void;
  /** Names the tab list for screen readers. */
  label: string;
  /** The panel of the selected tab. */
  children: ReactNode;
  className?: string;
  /** On a phone, a select in place of a tab bar too wide to show every tab. */
  phonePicker?: boolean;
};

/**
 * Tabs (WAI-ARIA tabs pattern, automatic activation): only the selected tab is in the Tab order;
 * Left/Right arrows, Home and End move to and select another tab. One panel, the selected one.
 */
export function Tabs<T extends string>({ items, value, onValueChange, label, children, className, phonePicker = false }: TabsProps<T>) {
  const baseId = useId();
  const listRef = useRef<HTMLDivElement>(null);
  const tabId = (id: T) => `${baseId}-tab-${id}`;
  const panelId = `${baseId}-panel`;

  const selectAt = (index: number) => {
    const next = items[(index + items.length) % items.length];
    if (!next) return;
    onValueChange(next.id);
    listRef.current?.querySelector<HTMLElement>(`[id="${tabId(next.id)}"]`)?.focus();
  };

  const onKeyDown = (event: KeyboardEvent) => {
    const current = items.findIndex((item) => item.id === value);
    const moves: Record<string, number> = { ArrowRight: current + 1, ArrowLeft: current - 1, Home: 0, End: items.length - 1 };
    const target = moves[event.key];
    if (target === undefined) return;
    event.preventDefault();
    selectAt(target);
  };

  return (
    <div className={className}>
      {phonePicker ? (
        <Select aria-label={label} value={value} onChange={(event) => onValueChange(event.target.value as T)} className="sm:hidden">
          {items.map((item) => (
            <option key={item.id} value={item.id}>
              {item.label}
            </option>
          ))}
        </Select>
      ) : null}
      <div
        ref={listRef}
        role="tablist"
        aria-label={label}
        onKeyDown={onKeyDown}
        className={cn("gap-1 overflow-x-auto border-b border-slate-200", phonePicker ? "hidden sm:flex" : "flex")}
      >
        {items.map((item) => {
          const selected = item.id === value;
          return (
            <button
              key={item.id}
              id={tabId(item.id)}
              type="button"
              role="tab"
              aria-selected={selected}
              aria-controls={panelId}
              tabIndex={selected ? 0 : -1}
              onClick={() => onValueChange(item.id)}
              className={cn(
                "keyboard-focus-ring -mb-px whitespace-nowrap border-b-2 px-4 py-2.5 text-sm font-medium transition-colors",
                selected ? "border-indigo-600 text-indigo-700" : "border-transparent text-slate-600 hover:border-slate-300 hover:text-slate-900",
              )}
            >
              {item.label}
            </button>
          );
        })}
      </div>
      <div id={panelId} role="tabpanel" aria-labelledby={tabId(value)} tabIndex={0} className="keyboard-focus-ring mt-6 rounded-md">
        {children}
      </div>
    </div>
  );
}
