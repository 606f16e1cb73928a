// `npm start` runs this first: it builds the web app and the agent binary the server hands out
// when they are missing or older than their sources, so a fresh clone needs no build step of its
// own. A couple of seconds on a fresh clone; nothing once both are current.
import { AGENT_BUILD, isAgentBuildCurrent, isBuildCurrent, runBuildScript, staleAgentPlatformBuilds, WEB_BUILD } from "./build-freshness";

try {
  if (!isBuildCurrent(WEB_BUILD)) {
    console.log("dbvault: building the web app (web/dist is missing or older than its sources)");
    runBuildScript("build-web.ts");
  }
  if (!isAgentBuildCurrent(AGENT_BUILD.output)) {
    console.log("dbvault: building the agent that the server hands out (dist/dbvault-agent is missing or stale)");
    runBuildScript("build-agent.ts");
  }
  for (const platform of staleAgentPlatformBuilds()) runBuildScript("build-agent.ts", ["--target", platform]);
} catch (error) {
  console.error(`dbvault: ${(error as Error).message}; the server was not started`);
  process.exit(1);
}
