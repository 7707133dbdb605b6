#!/usr/bin/env node
// Lists the longest functions (declarations, methods, arrow functions and function expressions) of the
// TypeScript files under the given folders, longest first: `node scripts/function-sizes.mjs apps/agent/src`.
// With `--max N` it fails when one is longer than N lines (the lint step holds apps/*/src to about 80).
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";

const args = process.argv.slice(2);
const maxAt = args.indexOf("--max");
const max = maxAt < 0 ? undefined : Number(args.splice(maxAt, 2)[1]);
const files = args.flatMap(function walk(path) {
  if (statSync(path).isDirectory()) return readdirSync(path).flatMap((name) => walk(join(path, name)));
  return path.endsWith(".ts") && !path.endsWith(".d.ts") ? [path] : [];
});
const sizes = [];
for (const file of files) {
  const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
  const visit = (node) => {
    if (ts.isFunctionLike(node) && "body" in node && node.body !== undefined) {
      const line = (pos) => source.getLineAndCharacterOfPosition(pos).line;
      const lines = line(node.getEnd()) - line(node.getStart(source)) + 1;
      const name = node.name?.getText(source) ?? nameOf(node.parent, source) ?? "(anonymous)";
      sizes.push({ lines, where: `${file}:${line(node.getStart(source)) + 1}`, name });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
}
function nameOf(parent, source) {
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent)) return parent.name.getText(source);
  return undefined;
}
sizes.sort((a, b) => b.lines - a.lines);
for (const s of sizes.slice(0, 10)) console.log(`${String(s.lines).padStart(4)}  ${s.name}  ${s.where}`);
const over = max === undefined ? [] : sizes.filter((s) => s.lines > max);
if (over.length > 0) {
  console.error(
    `${over.length} function(s) over ${max} lines: ${over.map((s) => `${s.name} (${s.where})`).join(", ")}`,
  );
  process.exit(1);
}
