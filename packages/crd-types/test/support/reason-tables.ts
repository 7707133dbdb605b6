/**
 * Reads the reason tables of docs/troubleshooting.md: under each heading, every table row whose first cell is a
 * code span is one documented reason, its last two cells the meaning and what to do.
 */

/** One documented reason. */
export interface ReasonRow {
  reason: string;
  meaning: string;
  action: string;
}

/** The reason rows under one heading (headings without rows are left out). */
export interface ReasonSection {
  heading: string;
  rows: ReasonRow[];
}

const HEADING = /^#{2,6}\s+(.*)$/;
const REASON_CELL = /^`([^`]+)`$/;

/** Returns the sections of `markdown` that hold reason rows, in document order. */
export function documentedReasons(markdown: string): ReasonSection[] {
  const sections: ReasonSection[] = [];
  let current: ReasonSection | undefined;
  for (const line of markdown.split("\n")) {
    const heading = HEADING.exec(line);
    if (heading) {
      current = { heading: heading[1]?.trim() ?? "", rows: [] };
      sections.push(current);
      continue;
    }
    if (current === undefined || !line.trimStart().startsWith("|")) continue;
    const cells = line
      .trim()
      .replace(/^\||\|$/g, "")
      .split("|")
      .map((cell) => cell.trim());
    const reason = REASON_CELL.exec(cells[0] ?? "")?.[1];
    if (reason === undefined || cells.length < 3) continue;
    current.rows.push({ reason, meaning: cells.at(-2) ?? "", action: cells.at(-1) ?? "" });
  }
  return sections.filter((s) => s.rows.length > 0);
}
