import { describe, expect, test } from "bun:test";
import { buildExcerpt, EXCERPT_LENGTH, markdownToPlainText } from "./excerpt";

describe("markdownToPlainText", () => {
  test("keeps the prose and drops markup, headings, code blocks and tables", () => {
    const markdown = [
      "# Title",
      "Intro with **bold**, *italic*, `code` and a [link](https://example.com).",
      "",
      "```sh",
      "dbvault-agent run",
      "```",
      "",
      "| a | b |",
      "|---|---|",
      "| 1 | 2 |",
      "",
      "- first item",
      "2. second item",
      "> quoted",
      "![diagram](img.png)",
    ].join("\n");
    expect(markdownToPlainText(markdown)).toBe("Intro with bold, italic, code and a link. first item second item quoted diagram");
  });

  test("leaves snake_case and lone asterisks alone", () => {
    expect(markdownToPlainText("Set max_pool_size to 5 * 2")).toBe("Set max_pool_size to 5 * 2");
  });
});

describe("buildExcerpt", () => {
  const long = `${"word ".repeat(30)}needle ${"tail ".repeat(60)}`.trim();

  test("cuts long text at a word boundary with an ellipsis", () => {
    const excerpt = buildExcerpt(long);
    expect(excerpt.length).toBeLessThanOrEqual(EXCERPT_LENGTH + 1);
    expect(excerpt).toEndWith("…");
    expect(excerpt).not.toMatch(/\s…$/);
    expect(excerpt.startsWith("word word")).toBe(true);
  });

  test("short text is returned whole", () => {
    expect(buildExcerpt("Just this.")).toBe("Just this.");
  });

  test("centres on the first search term found, case-insensitively", () => {
    const excerpt = buildExcerpt(long, ["missing", "NEEDLE"]);
    expect(excerpt).toStartWith("…word");
    expect(excerpt).toContain("needle");
    expect(excerpt.indexOf("needle")).toBeLessThan(70);
  });

  test("a term near the start does not move the excerpt", () => {
    expect(buildExcerpt(long, ["word"])).toStartWith("word word");
  });
});
