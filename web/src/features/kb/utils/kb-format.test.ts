import { describe, expect, test } from "bun:test";
import { addTag, fillServerAddress, findMissingField, formatCategoryLabel, generateSlug } from "./kb-format";

describe("knowledge base helpers", () => {
  test("category labels are the id with hyphens turned to capitalised words", () => {
    expect(formatCategoryLabel("getting-started")).toBe("Getting Started");
    expect(formatCategoryLabel("faq")).toBe("FAQ");
    expect(formatCategoryLabel("troubleshooting")).toBe("Troubleshooting");
  });

  test("slug rule: lowercase, drop non-word characters, whitespace to hyphens, collapse, trim", () => {
    expect(generateSlug("Installing the Agent")).toBe("installing-the-agent");
    expect(generateSlug("  What's new in v2.0?  ")).toBe("whats-new-in-v20");
    expect(generateSlug("Backup -- and   Restore")).toBe("backup-and-restore");
    expect(generateSlug("-Leading and trailing-")).toBe("leading-and-trailing");
    expect(generateSlug("snake_case stays")).toBe("snake_case-stays");
    expect(generateSlug("Ünïcode & symbols!")).toBe("ncode-symbols");
  });

  test("tags are trimmed, non-empty and unique", () => {
    expect(addTag([], "  backup ")).toEqual(["backup"]);
    expect(addTag(["backup"], "backup")).toEqual(["backup"]);
    expect(addTag(["backup"], "   ")).toEqual(["backup"]);
    expect(addTag(["backup"], "restore")).toEqual(["backup", "restore"]);
  });

  test("editor save checks title, then slug, then content", () => {
    expect(findMissingField({ title: " ", slug: "", content: "" })).toBe("Title is required");
    expect(findMissingField({ title: "T", slug: "  ", content: "" })).toBe("Slug is required");
    expect(findMissingField({ title: "T", slug: "t", content: "\n" })).toBe("Content is required");
    expect(findMissingField({ title: "T", slug: "t", content: "x" })).toBeNull();
  });
});

test("articles name the reader's own server in commands", () => {
  expect(fillServerAddress("curl -fsSL https://your-dbvault-server/install.sh | sh", "https://vault.example.com/")).toBe(
    "curl -fsSL https://vault.example.com/install.sh | sh",
  );
});
