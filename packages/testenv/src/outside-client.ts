/**
 * A client outside the node, for traffic that must not come from a local address (kube-proxy treats NodePort
 * traffic from the node itself differently: it goes cluster-wide even under `externalTrafficPolicy: Local`). Every
 * address of the test's network namespace is local to it, so the client gets a network namespace of its own,
 * joined by a veth pair (10.245.0.1 on our side, 10.245.0.2 on its side, its default route through us), and its
 * requests run there with this Node binary through `nsenter`. One at a time (fixed names and addresses).
 */
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { readlinkSync } from "node:fs";
import { promisify } from "node:util";
import { waitFor } from "./wait-for.js";

const run = promisify(execFile);
/** The client's address, as the servers see it. */
export const OUTSIDE_CLIENT_ADDRESS = "10.245.0.2";

/** Where `count` HTTP requests went: answers per `x-pod` header, and the requests that failed. */
export interface OutsideCount {
  byPod: Record<string, number>;
  failed: number;
}

/** A client in its own network namespace. */
export interface OutsideClient {
  readonly address: string;
  /** Sends `count` GETs to `host:port`, one after the other (2 s timeout each), counted by answering pod. */
  countHttp(host: string, port: number, count: number): Promise<OutsideCount>;
  stop(): Promise<void>;
}

const COUNT_SCRIPT = `
const http = require("node:http");
const [host, port, count] = process.argv.slice(1);
const out = { byPod: {}, failed: 0 };
const once = () => new Promise((resolve) => {
  const req = http.get({ host, port: Number(port), path: "/", timeout: 2000, agent: false }, (res) => {
    res.resume();
    const pod = String(res.headers["x-pod"] ?? "?");
    if (res.statusCode >= 200 && res.statusCode < 300) out.byPod[pod] = (out.byPod[pod] ?? 0) + 1;
    else out.failed++;
    res.on("end", resolve);
  });
  req.on("timeout", () => req.destroy(new Error("timeout")));
  req.on("error", () => { out.failed++; resolve(); });
});
(async () => { for (let i = 0; i < Number(count); i++) await once(); console.log(JSON.stringify(out)); })();
`;

/** Starts the client's namespace and link; `stop` removes both (the veth goes with the namespace). */
export async function startOutsideClient(): Promise<OutsideClient> {
  const holder: ChildProcess = spawn("unshare", ["--net", "sleep", "infinity"], { stdio: "ignore" });
  const pid = holder.pid;
  if (pid === undefined) throw new Error("startOutsideClient: could not start unshare");
  const ours = readlinkSync("/proc/self/ns/net");
  await waitFor("the client's network namespace", async () => {
    try {
      return readlinkSync(`/proc/${pid}/ns/net`) !== ours || undefined;
    } catch {
      return undefined;
    }
  });
  const netns = `--net=/proc/${pid}/ns/net`;
  const inside = (command: string) => run("nsenter", [netns, "sh", "-c", command]);
  try {
    await run("ip", [
      "link",
      "add",
      "swh-outside",
      "type",
      "veth",
      "peer",
      "name",
      "swh-client",
      "netns",
      `/proc/${pid}/ns/net`,
    ]);
    await run("ip", ["addr", "add", "10.245.0.1/30", "dev", "swh-outside"]);
    await run("ip", ["link", "set", "swh-outside", "up"]);
    await inside(
      `ip link set lo up && ip addr add ${OUTSIDE_CLIENT_ADDRESS}/30 dev swh-client && ip link set swh-client up && ip route add default via 10.245.0.1`,
    );
  } catch (error) {
    holder.kill("SIGKILL");
    throw error;
  }
  return {
    address: OUTSIDE_CLIENT_ADDRESS,
    async countHttp(host, port, count) {
      const { stdout } = await run(
        "nsenter",
        [netns, process.execPath, "-e", COUNT_SCRIPT, host, String(port), String(count)],
        {
          timeout: count * 2_500 + 10_000,
        },
      );
      return JSON.parse(stdout) as OutsideCount;
    },
    async stop() {
      holder.kill("SIGKILL");
      await new Promise((resolve) => holder.once("exit", resolve));
    },
  };
}
