import type { FlagSpec, FlagSpecs } from "./flag-spec.js";

/**
 * The `--help` text: `head` (what the program does, how to call it), then every flag with its placeholder, what it
 * does and its default, then `--help` and `--version`.
 */
export function formatUsage(head: string, flags: FlagSpecs): string {
  const rows: [string, string][] = Object.entries<FlagSpec>(flags).map(([name, spec]) => [
    `${spec.short !== undefined ? `-${spec.short}, ` : ""}--${name}${spec.type === "boolean" ? "" : ` ${spec.value ?? "VALUE"}`}${spec.multiple ? " (repeatable)" : ""}`,
    `${spec.help} (default: ${spec.default})`,
  ]);
  rows.push(["-h, --help", "print this help and exit"], ["--version", "print the version and exit"]);
  const width = Math.max(...rows.map(([left]) => left.length)) + 2;
  return `${head.trimEnd()}\n\nFlags:\n${rows.map(([left, right]) => `  ${left.padEnd(width)}${right}`).join("\n")}\n`;
}
