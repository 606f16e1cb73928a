import { describe, expect, test } from "bun:test";
import { settleVerification } from "./service";

describe("settleVerification", () => {
  const namespaces = { "shop.orders": 3 };

  test("an ok whose window was not replayed keeps why, so the dashboard can say it", () => {
    const reported = { status: "ok" as const, namespaces, notReplayed: 'this agent has no database "shop" configured to replay its oplog window into' };
    expect(settleVerification(reported, namespaces)).toEqual(reported);
  });

  test("an ok whose counts differ from the ones dumped is failed, whatever was replayed", () => {
    const settled = settleVerification({ status: "ok", namespaces, notReplayed: "no database" }, { "shop.orders": 4 });
    expect(settled.status).toBe("failed");
    expect(settled.notReplayed).toBeUndefined();
  });
});
