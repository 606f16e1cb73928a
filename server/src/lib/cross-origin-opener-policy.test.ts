import { describe, expect, test } from "bun:test";
import { Elysia } from "elysia";
import { httpBasics, isLoopbackHost } from "./http";
import { silentLogger } from "./logger";

// COOP is honoured only on https or loopback; over http at a LAN address Chromium logs an error
// about the ignored header on every page load.
describe("Cross-Origin-Opener-Policy", () => {
  const app = (https: boolean) => new Elysia().use(httpBasics(silentLogger, { https })).get("/page", () => "ok");
  const coop = async (url: string, https = false) => (await app(https).handle(new Request(url))).headers.get("cross-origin-opener-policy");

  test("sent where it takes effect: https, PUBLIC_URL https (behind a proxy), loopback", async () => {
    expect(await coop("https://backups.example.com/page")).toBe("same-origin");
    expect(await coop("http://10.0.0.5:3000/page", true)).toBe("same-origin");
    expect(await coop("http://localhost:3000/page")).toBe("same-origin");
    expect(await coop("http://127.0.0.1:3000/page")).toBe("same-origin");
    expect(await coop("http://[::1]:3000/page")).toBe("same-origin");
  });

  test("not sent over plain http at another address, where browsers ignore it with an error", async () => {
    expect(await coop("http://192.168.1.20:3000/page")).toBeNull();
    expect(await coop("http://backups.lan:3000/page")).toBeNull();
    // The other security headers stay.
    expect((await app(false).handle(new Request("http://192.168.1.20:3000/page"))).headers.get("x-frame-options")).toBe("DENY");
  });

  test("loopback names", () => {
    expect(["localhost", "app.localhost", "127.0.0.1", "127.1.2.3", "[::1]", "::1"].every(isLoopbackHost)).toBe(true);
    expect(["192.168.1.20", "localhost.example.com", "1270.0.0.1", "example.com"].some(isLoopbackHost)).toBe(false);
  });
});
