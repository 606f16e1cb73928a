import { formatBytes } from "@protocol/format";
import { Card } from "../../../components/ui/card";
import { describePlatform, useAgentReleases } from "../../../lib/agent-install";

/** Plain downloads of the agent for each platform this server has, with size and SHA-256. */
export function AgentDownloads() {
  const releases = useAgentReleases();
  return (
    <Card className="p-6" role="region" aria-labelledby="agent-downloads-heading">
      <h2 id="agent-downloads-heading" className="text-lg font-semibold text-slate-900">
        Download the agent
      </h2>
      <p className="mt-1 text-sm text-slate-600">
        The install command above picks the right file by itself. To copy the agent yourself, check its SHA-256 (<code className="font-mono">sha256sum dbvault-agent</code>).
      </p>
      {releases === null ? (
        <p className="mt-4 text-sm text-slate-500">Loading...</p>
      ) : releases.platforms.length === 0 ? (
        <p className="mt-4 text-sm text-slate-600">This server has no agent build to hand out yet (its administrator runs npm run build:agent).</p>
      ) : (
        <ul className="mt-4 divide-y divide-slate-100" aria-label="Agent downloads">
          {releases.platforms.map((platform) => (
            <li key={platform.url} className="py-3 text-sm" data-testid="agent-download">
              <a href={platform.url} className="font-medium text-indigo-600 underline" download>
                {describePlatform(platform)}
              </a>
              <span className="ml-2 text-slate-500">
                {formatBytes(platform.size)} · version {releases.version}
              </span>
              <p className="mt-1 break-all font-mono text-xs text-slate-600">SHA-256 {platform.sha256}</p>
            </li>
          ))}
        </ul>
      )}
    </Card>
  );
}
