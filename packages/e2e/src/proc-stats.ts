import { readFileSync } from "node:fs";

/** CPU time (user + system, seconds) and memory of a Linux process, read from /proc. */
export interface ProcStats {
  cpuSeconds: number;
  rssBytes: number;
  peakRssBytes: number;
}

/** Reads /proc/<pid>/stat and /proc/<pid>/status. */
export function readProcStats(pid: number): ProcStats {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  // Fields after the command name (which may contain spaces) start after the last ')'.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const ticks = Number(fields[11]) + Number(fields[12]); // utime, stime (fields 14 and 15 of the whole line)
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = (key: string) =>
    Number(new RegExp(`^${key}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? Number.NaN) * 1024;
  return { cpuSeconds: ticks / CLOCK_TICKS, rssBytes: kb("VmRSS"), peakRssBytes: kb("VmHWM") };
}

/** USER_HZ: 100 on every Linux architecture Node supports. */
const CLOCK_TICKS = 100;
