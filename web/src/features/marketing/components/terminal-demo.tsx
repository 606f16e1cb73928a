import { useEffect, useState } from "react";
import { cn } from "../../../lib/cn";

export type TerminalLine = { kind: "command" | "output" | "success" | "muted"; text: string };

const TYPE_MS = 28;
const LINE_MS = 520;
const RESTART_MS = 4200;

const LINE_CLASSES: Record<TerminalLine["kind"], string> = {
  command: "text-slate-100",
  output: "text-slate-300",
  success: "text-emerald-400",
  // slate-500 on the terminal's slate-900 was 3.7:1; slate-400 is 6.9:1.
  muted: "text-slate-400",
};

function usePrefersReducedMotion() {
  const [reduced] = useState(() => typeof window !== "undefined" && window.matchMedia?.("(prefers-reduced-motion: reduce)").matches);
  return reduced;
}

/**
 * An animated terminal drawn with CSS and React only: commands are typed, output lines appear in
 * turn, then it starts again. Reduced-motion users get the finished transcript at once; screen
 * readers get it as text.
 */
export function TerminalDemo({ title, lines, className }: { title: string; lines: TerminalLine[]; className?: string }) {
  const reduced = usePrefersReducedMotion();
  const [lineIndex, setLineIndex] = useState(reduced ? lines.length : 0);
  const [typed, setTyped] = useState(0);

  useEffect(() => {
    if (reduced) return;
    if (lineIndex >= lines.length) {
      const timer = setTimeout(() => {
        setLineIndex(0);
        setTyped(0);
      }, RESTART_MS);
      return () => clearTimeout(timer);
    }
    const line = lines[lineIndex]!;
    if (line.kind === "command" && typed < line.text.length) {
      const timer = setTimeout(() => setTyped((n) => n + 1), TYPE_MS);
      return () => clearTimeout(timer);
    }
    const timer = setTimeout(
      () => {
        setLineIndex((i) => i + 1);
        setTyped(0);
      },
      line.kind === "command" ? LINE_MS * 1.4 : LINE_MS,
    );
    return () => clearTimeout(timer);
  }, [reduced, lineIndex, typed, lines]);

  return (
    <figure className={cn("overflow-hidden rounded-xl border border-slate-700 bg-slate-900 text-left shadow-2xl", className)}>
      <figcaption className="flex items-center gap-2 border-b border-slate-700 bg-slate-800 px-4 py-2.5">
        <span aria-hidden="true" className="h-3 w-3 rounded-full bg-red-400" />
        <span aria-hidden="true" className="h-3 w-3 rounded-full bg-amber-400" />
        <span aria-hidden="true" className="h-3 w-3 rounded-full bg-emerald-400" />
        <span className="ml-2 font-mono text-xs text-slate-400">{title}</span>
      </figcaption>
      <pre className="sr-only">{lines.map((l) => (l.kind === "command" ? `$ ${l.text}` : l.text)).join("\n")}</pre>
      <div aria-hidden="true" className="h-72 overflow-hidden p-4 font-mono text-[13px] leading-6">
        {lines.slice(0, Math.min(lineIndex + 1, lines.length)).map((line, index) => {
          const current = index === lineIndex;
          const text = line.kind === "command" && current ? line.text.slice(0, typed) : line.text;
          return (
            <div key={index} className={cn("whitespace-pre-wrap break-words", LINE_CLASSES[line.kind])}>
              {line.kind === "command" ? <span className="text-indigo-400">$ </span> : null}
              {text}
              {current ? <span className="terminal-caret ml-0.5 inline-block h-4 w-2 translate-y-0.5 bg-slate-300" /> : null}
            </div>
          );
        })}
      </div>
    </figure>
  );
}

// An operator's backup from the agent's own CLI (dbvault-agent backup now, as Trigger Backup does)
// and what the running agent then logs, and a restore: only commands that exist, with the words
// the CLI prints, and a restore that stages and swaps as the agent does (docs/restore.md).
export const BACKUP_DEMO: TerminalLine[] = [
  { kind: "command", text: "dbvault-agent backup now --db production-db" },
  { kind: "muted", text: 'dbvault-agent: asked for a backup of "production-db": dbvault-agent run takes it now' },
  { kind: "output", text: "[agent] Backup of production-db requested (backup now)" },
  { kind: "output", text: "[dump]  mongodump --archive  ▸ 38%  orders" },
  { kind: "output", text: "[dump]  mongodump --archive  ▸ 100% 48,210 documents" },
  { kind: "output", text: "[crypt] Encrypting with AES-256-GCM (key stays on this server)" },
  { kind: "output", text: "[send]  Uploading 12.4 MB to DBVault" },
  { kind: "success", text: "✔ Backup completed, read back and verified" },
];

export const RESTORE_DEMO: TerminalLine[] = [
  { kind: "muted", text: "[agent] Restore of production-db requested" },
  { kind: "output", text: "[fetch] Downloading encrypted archive ▸ 12.4 MB" },
  { kind: "output", text: "[crypt] Decrypting and verifying every chunk" },
  { kind: "output", text: "[mongo] Restoring into staging collections" },
  { kind: "output", text: "[mongo] Swapping 6 collections into place" },
  { kind: "output", text: "[mongo] Restored 48,210 documents, 0 failed" },
  { kind: "success", text: "✔ Restore completed successfully" },
];
