// What the restore's progress shows while the whole file is checked: a step with its share done,
// never the step's label dressed as a collection ("restoring Verifying backup…: 0 documents").
import { expect, test } from "bun:test";
import { Writable } from "node:stream";
import { createProgressDisplay } from "./progress-display.ts";

const VERIFYING = "Verifying backup…";

function capture() {
  let text = "";
  const stream = new Writable({
    write(chunk, _encoding, callback) {
      text += String(chunk);
      callback();
    },
  });
  return { stream, text: () => text };
}

test("plain lines: the check is a step with its percentage, then collections with their counts", () => {
  const out = capture();
  const display = createProgressDisplay({ stream: out.stream, isTTY: false, verb: "restoring", steps: { [VERIFYING]: "verifying the backup" } });
  display.update({ current: 0, total: 0, percentage: 0, collection: VERIFYING });
  display.update({ current: 0, total: 0, percentage: 42, collection: VERIFYING });
  display.update({ current: 10, total: 20, percentage: 50, collection: "shop.orders" });
  expect(out.text()).toBe("dbvault-agent: verifying the backup: 42.0%\ndbvault-agent: restoring shop.orders: 10/20 documents (50.0%)\n");
});

test("a terminal's bar names the step without document counts", () => {
  const out = capture();
  const display = createProgressDisplay({ stream: out.stream, isTTY: true, columns: 120, verb: "restoring", steps: { [VERIFYING]: "verifying the backup" } });
  display.update({ current: 0, total: 0, percentage: 25, collection: VERIFYING });
  expect(out.text()).toBe(`\r\x1b[2Kverifying the backup [######..................]  25.0%`);
  display.finish();
});
