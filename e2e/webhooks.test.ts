// Settings → Notifications → Webhooks and Slack in Chromium against the real server: a webhook to
// a receiver on loopback (WEBHOOK_ALLOW_PRIVATE=true) is added, its secret shown once, a test is
// sent and checked with that secret, a real event that got a 500 shows as retrying in the
// delivery log, a bad URL is explained, and the webhook is deleted.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { registerScriptedAgent } from "../server/test/scripted-agent";
import { isSignedBy, startWebhookReceiver, type WebhookReceiver } from "../testkit/webhook-receiver";
import { waitUntil } from "../testkit/wait-until";
import { type E2EEnv, startE2E } from "./support/e2e-env";
import { eventually } from "./support/eventually";
import { signIn } from "./support/sign-in";
import { waitForToast } from "./support/toasts";

let env: E2EEnv;
let receiver: WebhookReceiver;
beforeAll(async () => {
  env = await startE2E({ WEBHOOK_ALLOW_PRIVATE: "true" });
  receiver = startWebhookReceiver();
});
afterAll(async () => {
  receiver?.close();
  await env?.close();
});

describe("webhooks", () => {
  test("add a webhook, see its secret once, send a test, read the delivery log with a retry, delete it", async () => {
    const user = await env.server.registerUser({ name: "Webhook User" });
    const { context, page } = await env.openPage();
    await signIn(page, user);
    await page.goto("/settings?tab=notifications");
    await page.getByRole("heading", { name: "Webhooks and Slack" }).waitFor();
    await page.getByText("No webhooks yet.").waitFor();

    // A URL the server refuses is explained in the form.
    await page.getByLabel("Webhook URL").fill("ftp://hooks.example.com/x");
    await page.getByRole("button", { name: "Add Webhook" }).click();
    await page.getByRole("alert").getByText("The webhook URL must start with https://.").waitFor();

    const url = `${receiver.url}/from-the-ui`;
    await page.getByLabel("Webhook URL").fill(url);
    // The defaults are the failures; backup.failed is among them, agent.online is not.
    expect(await page.getByRole("checkbox", { name: "backup.failed" }).isChecked()).toBe(true);
    expect(await page.getByRole("checkbox", { name: "agent.online" }).isChecked()).toBe(false);
    await page.getByRole("checkbox", { name: "agent.online" }).check();
    await page.getByRole("button", { name: "Add Webhook" }).click();
    const secret = (await page.getByTestId("webhook-secret").textContent())!.trim();
    expect(secret).toMatch(/^whsec_/);
    const row = page.getByRole("region", { name: `Webhook ${url}` });
    await row.getByText("No deliveries yet.").waitFor();

    await row.getByRole("button", { name: "Send Test" }).click();
    await waitForToast(page, "Test delivered.");
    const [test] = receiver.received.filter((d) => d.path === "/from-the-ui");
    expect(test!.event).toBe("webhook.test");
    expect(isSignedBy(secret, test!.rawBody, test!.signature)).toBe(true);
    await eventually(
      () => row.getByTestId("webhook-last-delivery").textContent(),
      (text) => expect(text).toBe("Last delivery: webhook.test · Delivered (HTTP 200)"),
    );

    // A real event that the endpoint answers with a 500: logged, and retried later.
    receiver.answers.push(500);
    const agent = await registerScriptedAgent(env.baseUrl, user.apiKey, ["orders"], "ui-agent");
    await agent.connect();
    await waitUntil(() => receiver.received.some((d) => d.path === "/from-the-ui" && d.event === "agent.online"), { message: "the agent.online delivery" });
    await row.getByRole("button", { name: "Delivery Log" }).click();
    const log = row.getByRole("table", { name: "Delivery log" });
    await eventually(
      async () => {
        await row.getByRole("button", { name: "Hide Log" }).click();
        await row.getByRole("button", { name: "Delivery Log" }).click();
        return log.locator("tbody tr").allInnerTexts();
      },
      (rows) => {
        expect(rows).toHaveLength(2);
        expect(rows[0]).toContain("agent.online");
        expect(rows[0]).toContain("Retrying at");
        expect(rows[0]).toContain("The endpoint answered HTTP 500.");
        expect(rows[0]).toContain("HTTP 500");
        expect(rows[1]).toContain("webhook.test");
        expect(rows[1]).toContain("Delivered (HTTP 200)");
      },
    );
    await env.screenshot(page, "settings-webhooks");

    await row.getByRole("button", { name: "Delete" }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Delete" }).click();
    await page.getByText("No webhooks yet.").waitFor();
    expect((await env.server.call("GET", "/api/settings/webhooks", { token: user.token })).body).toEqual([]);
    await agent.disconnect();
    await context.close();
  });
});
