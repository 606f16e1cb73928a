import { expect, test } from "bun:test";
import { sealIdentity } from "../../../web/src/features/dashboard/utils/seal-identity.ts";
import { createIdentityTransport } from "./identity-transport.ts";

const IDENTITY = `dbvid1_${"A".repeat(48)}`;

test("opens what the web sealed to its recipient; each run has its own key, and another run's copy is refused without quoting it", async () => {
  const run = await createIdentityTransport();
  expect(run.recipient).toMatch(/^age1[a-z0-9]{58}$/);
  expect(await run.open(await sealIdentity(IDENTITY, run.recipient))).toBe(IDENTITY);

  const nextRun = await createIdentityTransport();
  expect(nextRun.recipient).not.toBe(run.recipient);
  const refusal = await nextRun.open(await sealIdentity(IDENTITY, run.recipient)).catch((error: Error) => error.message);
  expect(refusal).toBe(
    "the identity sent with this restore was sealed for another run of this agent (it restarted since the restore wizard opened): open the restore wizard again and paste the identity",
  );
  expect(refusal).not.toContain(IDENTITY.slice(7));
});
