import { describe, expect, test } from "bun:test";
import { describeFinalWarning, describeFirstWarning, describeSecondWarning, type RestoreChoice } from "./restore-warnings";

const copy: RestoreChoice = { mode: "copy", source: "shop", target: "shop_restored_2026-11-26", chosen: [], inBackup: ["customers", "orders"] };
const replace: RestoreChoice = { mode: "replace", source: "fshop", target: "fshop", chosen: [], inBackup: ["customers", "orders"] };
const everything = (choice: RestoreChoice) =>
  [describeFirstWarning(choice), describeSecondWarning(choice), describeFinalWarning(choice)]
    .map((w) => `${w.title} ${w.text} ${"list" in w ? w.list.join(" ") : ""}`)
    .join(" ");

describe("restore as a copy", () => {
  test("says the original is not changed, and never that the restore is irreversible or loses documents", () => {
    expect(describeFirstWarning(copy).title).toBe("shop is not changed");
    expect(describeFinalWarning(copy)).toEqual({
      tone: "info",
      title: "Confirm the copy",
      text: "shop stays as it is; only shop_restored_2026-11-26 is written.",
    });
    const all = everything(copy);
    expect(all).not.toContain("cannot be reversed");
    expect(all).not.toContain("cannot be undone");
    expect(all).not.toContain("All collections will be dropped");
    expect(all).not.toContain("You will lose");
  });
});

describe("replace the original", () => {
  test("names the collections replaced and says the others are left as they are", () => {
    expect(describeFirstWarning(replace)).toMatchObject({
      title: "This restore cannot be reversed",
      text: "Restoring replaces the collections this backup holds (customers, orders) in fshop with their contents in this backup. Collections of fshop that are not in the backup are left as they are.",
    });
    expect(describeSecondWarning(replace)).toMatchObject({
      title: "The backup's collections will be dropped and replaced",
      listTitle: "In those collections, you will lose:",
    });
    expect(describeSecondWarning(replace).text).toStartWith(
      "In fshop, the collections this backup holds (customers, orders) are replaced by the backup's; its other collections are left as they are.",
    );
    expect(everything(replace)).not.toContain("Every collection in fshop");
  });

  test("chosen collections, or a backup whose collections are not known", () => {
    expect(describeFirstWarning({ ...replace, chosen: ["orders"] }).text).toBe(
      "Restoring replaces the collections orders in fshop with their contents in this backup. Collections of fshop that are not in the backup or not chosen are left as they are.",
    );
    expect(describeSecondWarning({ ...replace, inBackup: null }).text).toStartWith(
      "In fshop, the collections this backup holds are replaced by the backup's; its other collections are left as they are.",
    );
  });
});

describe("restore to another connection", () => {
  const elsewhere: RestoreChoice = {
    mode: "connection",
    connection: { name: "staging", agentName: "staging-host" },
    source: "shop",
    target: "shop",
    chosen: [],
    inBackup: ["orders"],
  };
  test("names the connection and its agent at each step, and says the server cannot see whether the target exists", () => {
    expect(describeFirstWarning(elsewhere).text).toStartWith(
      "The backup is restored into shop on the connection staging (agent staging-host), on whatever MongoDB server that connection reaches; nothing else is written.",
    );
    expect(describeFirstWarning(elsewhere).list[0]).toBe("Make sure shop on that server is the database you mean: DBVault cannot see whether it exists.");
    expect(describeSecondWarning(elsewhere).title).toBe("Restoring into shop on the connection staging (agent staging-host)");
    expect(describeFinalWarning(elsewhere)).toEqual({
      tone: "error",
      title: "Confirm the target",
      text: "Only shop on the connection staging (agent staging-host) is written; what the backup restores there cannot be undone.",
    });
    expect(everything(elsewhere)).not.toContain("same MongoDB server");
  });
});
