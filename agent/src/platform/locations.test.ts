import { expect, test } from "bun:test";
import { resolveConfigPath } from "../config.ts";
import { defaultConfigPath, describeFileProtection, osFamily } from "./locations.ts";

test("the config lives where each system keeps a user's settings", () => {
  expect(defaultConfigPath({ HOME: "/home/ann" }, "linux")).toBe("/home/ann/.config/dbvault/agent.json");
  expect(defaultConfigPath({ HOME: "/home/ann", XDG_CONFIG_HOME: "/srv/conf" }, "linux")).toBe("/srv/conf/dbvault/agent.json");
  expect(defaultConfigPath({ HOME: "/Users/ann", XDG_CONFIG_HOME: "/Users/ann/.xdg" }, "darwin")).toBe(
    "/Users/ann/Library/Application Support/DBVault/agent.json",
  );
  expect(defaultConfigPath({ APPDATA: "C:\\Users\\ann\\AppData\\Roaming", USERPROFILE: "C:\\Users\\ann" }, "windows")).toBe(
    "C:\\Users\\ann\\AppData\\Roaming\\DBVault\\agent.json",
  );
  // Without APPDATA (a service account's odd environment), the profile's usual place.
  expect(defaultConfigPath({ USERPROFILE: "C:\\Users\\svc" }, "windows")).toBe("C:\\Users\\svc\\AppData\\Roaming\\DBVault\\agent.json");
});

test("--config wins over every default", () => {
  expect(resolveConfigPath("/etc/dbvault/agent.json", { HOME: "/home/ann" })).toBe("/etc/dbvault/agent.json");
  expect(resolveConfigPath("", { HOME: "/home/ann", XDG_CONFIG_HOME: "" })).toBe(defaultConfigPath({ HOME: "/home/ann" }));
});

test("messages say what protects the file: its mode on POSIX, the profile's access list on Windows", () => {
  expect(describeFileProtection("linux")).toBe("mode 0600");
  expect(describeFileProtection("darwin")).toBe("mode 0600");
  expect(describeFileProtection("windows")).toContain("in your user profile, which only you, SYSTEM and administrators can read");
});

test("Node's platform names map to the three families", () => {
  expect([osFamily("linux"), osFamily("darwin"), osFamily("win32"), osFamily("freebsd")]).toEqual(["linux", "darwin", "windows", "linux"]);
});
