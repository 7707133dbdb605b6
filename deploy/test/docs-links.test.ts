/**
 * Every relative link of the repository's Markdown leads somewhere (issue 21 item 7: deploy/README.md cited a
 * CONTRACTS.md that did not exist): the file exists, and a `#fragment` into a Markdown file names one of its
 * headings (GitHub's anchors: lower case, punctuation dropped, spaces to hyphens).
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { anchorsOf } from "./support/markdown.ts";
import { ROOT_DIR, run } from "./support/tools.ts";

const LINK = /\[[^\]]*\]\(([^)\s]+)\)/g;

function trackedMarkdown(): string[] {
  const listed = run("git", ["ls-files", "*.md"], { cwd: ROOT_DIR });
  return listed.stdout.trim().split("\n").filter(Boolean);
}

/** The broken links of `doc` (a path relative to the root), as "target: why". */
function brokenLinks(doc: string): string[] {
  const text = readFileSync(join(ROOT_DIR, doc), "utf8").replace(/^```[\s\S]*?^```/gm, "");
  const broken: string[] = [];
  for (const [, target = ""] of text.matchAll(LINK)) {
    if (/^[a-z]+:/.test(target)) continue; // https:, mailto:
    const [path = "", fragment] = target.split("#");
    const file = path === "" ? join(ROOT_DIR, doc) : join(ROOT_DIR, dirname(doc), path);
    if (!existsSync(file)) broken.push(`${target}: no such file`);
    else if (fragment && file.endsWith(".md") && !anchorsOf(file).has(fragment)) {
      broken.push(`${target}: no heading #${fragment}`);
    }
  }
  return broken;
}

describe("Markdown links", () => {
  it("finds the repository's documents", () => {
    expect(trackedMarkdown()).toEqual(
      expect.arrayContaining(["README.md", "deploy/README.md", "docs/install.md"]),
    );
  });

  it.each(trackedMarkdown())("%s: every relative link resolves", (doc) => {
    expect(brokenLinks(doc)).toEqual([]);
  });
});
