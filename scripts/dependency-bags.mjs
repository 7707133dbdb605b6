#!/usr/bin/env node
// Finds exported functions, constructors and methods of the given TypeScript projects' sources that take a
// "dependency bag": an object parameter with more than N members that are behaviour — a callback, or an object
// with methods (a client, a logger, a cache) — rather than plain data (names, numbers, flags, lists, records).
// `node scripts/dependency-bags.mjs --max 6 apps/agent apps/controller packages/kube` lists each offender and
// fails when there is one (issue 28: no exported function takes a dependency object of more than about six).
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import ts from "typescript";

const args = process.argv.slice(2);
const maxAt = args.indexOf("--max");
const max = maxAt < 0 ? 6 : Number(args.splice(maxAt, 2)[1]);
const offenders = [];
for (const dir of args) {
  const configPath = join(dir, "tsconfig.json");
  if (!existsSync(configPath)) continue;
  const config = ts.getParsedCommandLineOfConfigFile(
    resolve(configPath),
    {},
    { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} },
  );
  const program = ts.createProgram({ rootNames: config.fileNames, options: config.options });
  const checker = program.getTypeChecker();
  const isBehaviour = (type) => {
    if (type.getCallSignatures().length > 0) return true;
    const nonNullable = checker.getNonNullableType(type);
    if (nonNullable.isUnion()) return nonNullable.types.some(isBehaviour);
    if (checker.isArrayType(nonNullable) || !(nonNullable.flags & ts.TypeFlags.Object)) return false;
    return nonNullable.getProperties().some((p) => {
      const t = checker.getTypeOfSymbol(p);
      return t.getCallSignatures().length > 0 && (p.flags & ts.SymbolFlags.Method) !== 0;
    });
  };
  // An options object: an object type of our own (a literal or an interface), not a class instance, not a list.
  const isBag = (type) =>
    (type.flags & ts.TypeFlags.Object) !== 0 &&
    type.getCallSignatures().length === 0 &&
    !checker.isArrayType(type) &&
    !checker.isTupleType(type) &&
    !(type.symbol && type.symbol.flags & ts.SymbolFlags.Class) &&
    !(type.symbol?.declarations ?? []).some((d) => d.getSourceFile().fileName.includes("/node_modules/"));
  for (const source of program.getSourceFiles()) {
    if (!source.fileName.startsWith(resolve(dir, "src"))) continue;
    const visit = (node) => {
      const exported =
        (ts.isFunctionDeclaration(node) && ts.getCombinedModifierFlags(node) & ts.ModifierFlags.Export) ||
        ((ts.isConstructorDeclaration(node) || ts.isMethodDeclaration(node)) &&
          ts.isClassDeclaration(node.parent) &&
          ts.getCombinedModifierFlags(node.parent) & ts.ModifierFlags.Export &&
          !(ts.getCombinedModifierFlags(node) & ts.ModifierFlags.Private) &&
          !(node.name && ts.isPrivateIdentifier(node.name)));
      if (exported) {
        for (const param of node.parameters) {
          const type = checker.getNonNullableType(checker.getTypeAtLocation(param));
          if (!isBag(type)) continue;
          const behaviour = type
            .getProperties()
            .filter((p) => isBehaviour(checker.getTypeOfSymbolAtLocation(p, param)));
          if (behaviour.length > max) {
            const { line } = source.getLineAndCharacterOfPosition(node.getStart(source));
            const name = node.name?.getText(source) ?? "constructor";
            const where = `${source.fileName.slice(process.cwd().length + 1)}:${line + 1}`;
            offenders.push(
              `${where} ${name}(${param.name.getText(source)}): ${behaviour.length} — ${behaviour.map((p) => p.name).join(", ")}`,
            );
          }
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
}
for (const o of offenders) console.error(o);
if (offenders.length > 0) {
  console.error(
    `${offenders.length} exported function(s) take a dependency object of more than ${max} behaviour members`,
  );
  process.exit(1);
}
console.log(`no exported function takes a dependency object of more than ${max} behaviour members`);
