// A real HTTP endpoint on loopback that records what webhooks deliver: raw body, headers, time.
// Tests script its answers (a 500, then 200s) and check signatures with their own HMAC.
import { createHmac, timingSafeEqual } from "node:crypto";

export type ReceivedDelivery = {
  path: string;
  event: string | null;
  signature: string | null;
  deliveryId: string | null;
  host: string | null;
  rawBody: string;
  body: any;
};

export type WebhookReceiver = {
  /** http://127.0.0.1:PORT */
  url: string;
  port: number;
  received: ReceivedDelivery[];
  /** Status codes to answer, in order (push to it); once used up, 200. */
  answers: number[];
  close(): void;
};

/** Starts a receiver on a free loopback port. */
export function startWebhookReceiver(): WebhookReceiver {
  const received: ReceivedDelivery[] = [];
  const answers: number[] = [];
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(request) {
      const rawBody = await request.text();
      let body: unknown = null;
      try {
        body = JSON.parse(rawBody);
      } catch {}
      received.push({
        path: new URL(request.url).pathname,
        event: request.headers.get("x-dbvault-event"),
        signature: request.headers.get("x-dbvault-signature"),
        deliveryId: request.headers.get("x-dbvault-delivery"),
        host: request.headers.get("host"),
        rawBody,
        body,
      });
      return new Response("ok", { status: answers.shift() ?? 200 });
    },
  });
  return { url: `http://127.0.0.1:${server.port}`, port: server.port!, received, answers, close: () => void server.stop(true) };
}

/** Whether `signature` is `sha256=<hex HMAC-SHA256 of rawBody under secret>`, computed here independently. */
export function isSignedBy(secret: string, rawBody: string, signature: string | null): boolean {
  if (!signature?.startsWith("sha256=")) return false;
  const expected = createHmac("sha256", secret).update(rawBody, "utf8").digest();
  const given = Buffer.from(signature.slice("sha256=".length), "hex");
  return given.length === expected.length && timingSafeEqual(given, expected);
}
