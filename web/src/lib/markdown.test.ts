import { describe, expect, test } from "bun:test";
import { createHeadingIdGenerator, isAllowedUrl, renderMarkdown, sanitizeUrls } from "./markdown";

const htmlOf = (markdown: string) =>
  renderMarkdown(markdown)
    .blocks.map((block) => (block.kind === "html" ? block.html : `<pre><code>${block.html}</code></pre>`))
    .join("");

describe("markdown safety", () => {
  const hostile = [
    "[click](javascript:alert(1))",
    "[click](JaVaScRiPt:alert(1))",
    "[click](<java\tscript:alert(1)>)",
    "[click](  javascript:alert(1))",
    "[click](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
    "[click](vbscript:msgbox(1))",
    "<javascript:alert(1)>",
    "[ref]\n\n[ref]: javascript:alert(1)",
    "![x](data:image/svg+xml;base64,PHN2Zz48L3N2Zz4=)",
    "![x](javascript:alert(1))",
    "[x](&#x6a;avascript:alert(1))",
  ];

  for (const source of hostile) {
    test(`no dangerous URL reaches the page: ${JSON.stringify(source)}`, () => {
      const html = htmlOf(source);
      expect(html).not.toMatch(/(href|src)="\s*(javascript|data|vbscript)/i);
      expect(html).not.toMatch(/(href|src)="[^"]*script:/i);
      expect(html).not.toMatch(/(href|src)="[^"]*data:/i);
    });
  }

  test("raw HTML is escaped, never rendered", () => {
    const html = htmlOf(
      '<script>alert(1)</script>\n\n<img src=x onerror="alert(1)">\n\nText <b onclick="x()">bold</b> <iframe src="https://evil.example"></iframe>',
    );
    expect(html).not.toContain("<script");
    expect(html).not.toContain("<img");
    expect(html).not.toContain("<b ");
    expect(html).not.toContain("<iframe");
    expect(html).toContain("&lt;script&gt;");
  });

  test("http, https, mailto, tel and relative links are kept", () => {
    const html = htmlOf(
      "[a](https://example.com/x?y=1&z=2) [b](http://example.com) [c](mailto:help@example.com) [d](tel:+31201234567) [e](/kb/quick-start) [f](#install)",
    );
    expect(html).toContain('href="https://example.com/x?y=1&amp;z=2"');
    expect(html).toContain('href="http://example.com"');
    expect(html).toContain('href="mailto:help@example.com"');
    expect(html).toContain('href="tel:+31201234567"');
    expect(html).toContain('href="/kb/quick-start"');
    expect(html).toContain('href="#install"');
    expect(html).toContain('rel="noopener noreferrer nofollow"');
  });

  test("other schemes are dropped but the text stays", () => {
    const html = htmlOf("[chat](irc://irc.example.com/room) [ftp](ftp://files.example.com)");
    expect(html).not.toContain("href=");
    expect(html).toContain("chat");
    expect(isAllowedUrl("ftp://x")).toBe(false);
    expect(isAllowedUrl("a/b:c")).toBe(true);
  });
});

describe("headings and code", () => {
  test("heading ids: lowercased, non-alphanumeric runs to hyphens, numeric suffix on duplicates", () => {
    const { headings, blocks } = renderMarkdown(
      "# Getting Started!\n\n## Install & Run the *agent*\n\n## Install & run the agent\n\n### FAQ\n\n## Install & Run the Agent",
    );
    expect(headings).toEqual([
      { id: "getting-started", text: "Getting Started!", level: 1 },
      { id: "install-run-the-agent", text: "Install & Run the agent", level: 2 },
      { id: "install-run-the-agent-1", text: "Install & run the agent", level: 2 },
      { id: "faq", text: "FAQ", level: 3 },
      { id: "install-run-the-agent-2", text: "Install & Run the Agent", level: 2 },
    ]);
    const html = blocks.map((b) => b.html).join("");
    expect(html).toContain('<h1 id="getting-started">');
    expect(html).toContain('<h2 id="install-run-the-agent-1">');
  });

  test("the id generator on its own", () => {
    const next = createHeadingIdGenerator();
    expect(next("Hello, World")).toBe("hello-world");
    expect(next("hello world")).toBe("hello-world-1");
    expect(next("???")).toBe("section");
  });

  test("fenced code blocks come out as their own blocks with the raw code", () => {
    const { blocks } = renderMarkdown('Intro\n\n```bash\necho "<hi>" && ls\n```\n\nAfter');
    expect(blocks.map((b) => b.kind)).toEqual(["html", "code", "html"]);
    const code = blocks[1]!;
    expect(code.kind === "code" && code.code).toBe('echo "<hi>" && ls');
    expect(code.kind === "code" && code.language).toBe("bash");
    expect(code.html).toContain("&lt;hi&gt;");
  });

  test("GFM tables render", () => {
    expect(htmlOf("| a | b |\n|---|---|\n| 1 | 2 |")).toContain("<table>");
  });
});

test("URL attributes are checked in any tag and attribute order, so a change in the HTML's shape fails closed", () => {
  const html = sanitizeUrls(
    '<a title="x" href="javascript:alert(1)">a</a><img alt="" src="data:text/html,x"><a HREF = "https://ok.example">b</a><area href="vbscript:x">',
  );
  expect(html).not.toContain("javascript:");
  expect(html).not.toContain("data:text/html");
  expect(html).not.toContain("vbscript:");
  expect(html).toContain('href="https://ok.example" rel="noopener noreferrer nofollow"');
});

test("single-quoted and unquoted URL attributes are checked too", () => {
  const html = sanitizeUrls(`<a href='javascript:alert(1)'>a</a><img src=javascript:x><a href=https://ok.example>b</a><a href='/kb/"x'>c</a>`);
  expect(html).not.toContain("javascript:");
  expect(html).toContain('href="https://ok.example" rel="noopener noreferrer nofollow"');
  expect(html).toContain('href="/kb/&quot;x"');
});
