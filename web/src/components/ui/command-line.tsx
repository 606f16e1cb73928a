import { Button } from "./button";
import { copyText } from "./copy-text";
import { Icon } from "./icons";

/** A shell command in a terminal-looking box, with a button that copies it. */
export function CommandLine({ command }: { command: string }) {
  return (
    <div className="flex items-center gap-2">
      <code className="block min-w-0 flex-1 overflow-x-auto whitespace-nowrap rounded-md bg-slate-900 px-3 py-2 font-mono text-sm text-slate-100">
        {command}
      </code>
      <Button variant="outline" size="icon" aria-label={`Copy command: ${command}`} onClick={() => copyText(command)}>
        <Icon name="copy" className="h-4 w-4" />
      </Button>
    </div>
  );
}
