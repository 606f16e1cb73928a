import { describe, expect, test } from "bun:test";
import { isOnboarding, listOnboardingSteps } from "./onboarding";

const done = (facts: Parameters<typeof listOnboardingSteps>[0]) => Object.fromEntries(listOnboardingSteps(facts).map((s) => [s.id, s.done]));

describe("onboarding checklist", () => {
  test("a new account has every step to do", () => {
    const steps = listOnboardingSteps({ agents: [], backups: [], restores: [] });
    expect(steps.map((s) => s.done)).toEqual([false, false, false, false, false]);
    expect(isOnboarding(steps)).toBe(true);
  });

  test("steps turn done as the agent registers, connects, backs up and restores", () => {
    expect(done({ agents: [{ status: "offline" }], backups: [], restores: [] })).toEqual({
      install: true,
      setup: true,
      connected: false,
      backup: false,
      restore: false,
    });
    expect(done({ agents: [{ status: "active" }], backups: [{ status: "failed" }], restores: [] })).toMatchObject({ connected: true, backup: false });
    const steps = listOnboardingSteps({ agents: [{ status: "active" }], backups: [{ status: "completed" }], restores: [] });
    // Until the first test restore, the checklist stays, so that its step is seen; hidden, it goes.
    expect(isOnboarding(steps)).toBe(true);
    expect(isOnboarding(steps, true)).toBe(false);
    expect(done({ agents: [{ status: "active" }], backups: [{ status: "completed" }], restores: [{ status: "completed" }] }).restore).toBe(true);
    expect(isOnboarding(listOnboardingSteps({ agents: [{ status: "active" }], backups: [{ status: "completed" }], restores: [{ status: "completed" }] }))).toBe(
      false,
    );
  });

  test("the install is done once the checklist's command fetched the script and downloaded the agent, before setup", () => {
    const at = "2026-11-27T02:00:00.000Z";
    expect(done({ agents: [], backups: [], restores: [], install: { scriptFetchedAt: at, downloadedAt: null } }).install).toBe(false);
    expect(done({ agents: [], backups: [], restores: [], install: { scriptFetchedAt: at, downloadedAt: at } })).toMatchObject({ install: true, setup: false });
  });

  test("after the only agent was removed, setup is to do again, with --force (its machine is still set up)", () => {
    const steps = listOnboardingSteps({ agents: [], databases: [{ name: "shop" }], backups: [{ status: "completed" }], restores: [] });
    const setup = steps.find((step) => step.id === "setup")!;
    expect(setup).toMatchObject({ done: false, again: true, title: "Connect the agent again: dbvault-agent setup --force" });
    expect(steps.find((step) => step.id === "install")!.done).toBe(true);
    expect(listOnboardingSteps({ agents: [], databases: [], backups: [], restores: [] }).find((step) => step.id === "setup")!.again).toBeUndefined();
  });

  test("a completed restore drill counts as the first test restore; a failed one does not", () => {
    const facts = { agents: [{ status: "active" }], backups: [{ status: "completed" }] };
    expect(done({ ...facts, restores: [{ status: "completed", kind: "drill" }] }).restore).toBe(true);
    expect(done({ ...facts, restores: [{ status: "failed", kind: "drill" }] }).restore).toBe(false);
    expect(listOnboardingSteps({ ...facts, restores: [] }).find((step) => step.id === "restore")!.hint).toContain("run a restore drill (Settings → General)");
  });
});
