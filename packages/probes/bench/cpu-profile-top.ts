/**
 * Prints the functions with the most self time in a V8 CPU profile (`node --cpu-prof`, e.g. from
 * `bench/peers.ts --cpu-prof-dir`), summed by function and file, as a share of the sampled time: where a probe's
 * CPU goes, for the decision records. Argv: <file.cpuprofile> [top N, default 25].
 */
import { readFileSync } from "node:fs";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const [file, topArg = "25"] = process.argv.slice(2);
if (!file) throw new Error("usage: cpu-profile-top.ts <file.cpuprofile> [N]");
const profile = JSON.parse(readFileSync(file, "utf8")) as Profile;
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const self = new Map<string, number>();
let total = 0;
for (const [i, id] of profile.samples.entries()) {
  const delta = profile.timeDeltas[i] ?? 0;
  const frame = byId.get(id)?.callFrame;
  const name = frame
    ? `${frame.functionName || "(anonymous)"} ${frame.url.replace(/^.*\//, "")}:${frame.lineNumber + 1}`
    : "?";
  self.set(name, (self.get(name) ?? 0) + delta);
  total += delta;
}
const top = [...self].sort((a, b) => b[1] - a[1]).slice(0, Number(topArg));
console.log(`${(total / 1e6).toFixed(1)} s sampled`);
for (const [name, us] of top) console.log(`${((us / total) * 100).toFixed(1).padStart(5)} %  ${name}`);
