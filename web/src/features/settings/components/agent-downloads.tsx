import { formatBytes } from "@protocol/format";
import { Card } from "../../../components/ui/card";
import { Button } from "../../../components/ui/button";
import { Icon } from "../../../components/ui/icons";
import { copyText } from "../../../components/ui/copy-text";
import { type AgentReleases, describePlatform, listPlatformOffers } from "../../../lib/agent-install";

/**
 * Plain downloads of the agent for every platform it is built for, with size, version and SHA-256
 * where this server has the build, and the release signing key those checksums are signed with.
 */
export function AgentDownloads({ releases }: { releases: AgentReleases | null }) {
  return (
    <Card className="p-6" role="region" aria-labelledby="agent-downloads-heading">
      <h2 id="agent-downloads-heading" className="text-lg font-semibold text-slate-900">
        Download the agent
      </h2>
      <p className="mt-1 text-sm text-slate-600">
        The install commands above pick the right file by themselves. To copy the agent yourself, check its SHA-256 (
        <code className="font-mono">sha256sum dbvault-agent</code>, or <code className="font-mono">Get-FileHash</code> on Windows).
      </p>
      {releases === null ? (
        <p className="mt-4 text-sm text-slate-500">Loading...</p>
      ) : (
        <>
          <div className="mt-4">
            <p className="text-sm font-medium text-slate-700">Release signing key</p>
            <p className="text-xs text-slate-500">
              The agent's builds sign the list of checksums with it; this server offers only what it signed. Agents trust it from their setup (which prints it)
              and install updates only when it signed them.
            </p>
            <div className="mt-2 flex items-center gap-2">
              <code className="block flex-1 break-all rounded-md bg-slate-100 px-3 py-2 font-mono text-xs text-slate-800" data-testid="release-key">
                {releases.publicKey}
              </code>
              <Button variant="outline" size="icon" aria-label="Copy release signing key" onClick={() => copyText(releases.publicKey)}>
                <Icon name="copy" className="h-4 w-4" />
              </Button>
            </div>
          </div>
          <ul className="mt-4 divide-y divide-slate-100" aria-label="Agent downloads">
            {listPlatformOffers(releases).map(({ platform, offered }) => (
              <li key={platform.id} className="py-3 text-sm" data-testid="agent-download" data-platform={platform.id}>
                {offered ? (
                  <>
                    <a href={offered.url} className="font-medium text-indigo-600 underline" download>
                      {describePlatform(platform)}
                    </a>
                    <span className="ml-2 text-slate-500">
                      {formatBytes(offered.size)} · version {offered.version}
                    </span>
                    <p className="mt-1 break-all font-mono text-xs text-slate-600">SHA-256 {offered.sha256}</p>
                  </>
                ) : (
                  <>
                    <span className="font-medium text-slate-500">{describePlatform(platform)}</span>
                    <span className="ml-2 text-slate-500">not built on this server (its administrator runs npm run build:agent -- --all)</span>
                  </>
                )}
              </li>
            ))}
          </ul>
        </>
      )}
    </Card>
  );
}
