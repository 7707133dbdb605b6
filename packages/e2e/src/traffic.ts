/**
 * Traffic as a user's client sends it: requests to a Service's ClusterIP (routed by the test kube-proxy), each on a
 * new connection so kube-proxy picks a backend every time, counted by the pod that answered (the backends of
 * ./backends.ts say who they are; a PostgreSQL server by its address, `inet_server_addr()`).
 */
import { request } from "node:http";
import { connect, Socket } from "node:net";
import pg from "pg";

/**
 * The client's source address: local in the network namespace (all of 10.244.0.0/16 is) but no backend's, so no
 * request hair-pins from a pod to itself.
 */
export const CLIENT_ADDRESS = "10.244.250.1";
const TIMEOUT_MS = 2_000;

/** Where `total` requests went: answers per pod (any status), and the requests that failed (error or non-2xx). */
export interface TrafficCount {
  total: number;
  byPod: Record<string, number>;
  failed: number;
  /** The distinct failure reasons, e.g. "ECONNREFUSED" or "mail-0: HTTP 503". */
  failures: string[];
}

/** Sends `count` HTTP GETs to `host:port`, one after the other, and counts who answered. */
export async function countHttp(host: string, port: number, count: number): Promise<TrafficCount> {
  return countEach(count, () => httpOnce(host, port));
}

/** Opens `count` TCP connections to `host:port`, one after the other, and counts whose greeting came back. */
export async function countTcp(host: string, port: number, count: number): Promise<TrafficCount> {
  return countEach(count, () => tcpOnce(host, port));
}

/** How a client logs in to PostgreSQL: a password user, without TLS (the test servers allow it for such users). */
export interface PostgresLogin {
  user: string;
  password: string;
  database: string;
}

/**
 * Opens `count` PostgreSQL sessions to `host:port`, one after the other, and runs `sql` in each; its first row's
 * first column must be the server's address (`inet_server_addr()`), counted as the pod `podByAddress` names. A
 * session that cannot connect or whose statement fails (a write on a replica: "cannot execute INSERT in a
 * read-only transaction") counts as failed with the server's message.
 */
export async function countPostgres(
  host: string,
  port: number,
  count: number,
  login: PostgresLogin,
  sql: string,
  podByAddress: Readonly<Record<string, string>>,
): Promise<TrafficCount> {
  return countEach(count, () => postgresOnce(host, port, login, sql, podByAddress));
}

/** What a stream counted, and when (ms after its start) each failed request was sent. */
export interface StreamCount extends TrafficCount {
  failedAtMs: number[];
}

/** A request stream running in the background; `stop()` ends it and resolves with everything it counted. */
export interface TrafficStream {
  stop(): Promise<StreamCount>;
}

/**
 * Sends requests (HTTP GETs or TCP connections) to `host:port`, each on a new connection, one every `everyMs` (a
 * steady client, not a flood: two shared cores also run the control plane and the apps), until stopped.
 */
export function streamTraffic(
  host: string,
  port: number,
  protocol: "http" | "tcp",
  everyMs = 20,
): TrafficStream {
  const total: StreamCount = { total: 0, byPod: {}, failed: 0, failures: [], failedAtMs: [] };
  const started = performance.now();
  let running = true;
  let wake: (() => void) | undefined;
  const loop = (async () => {
    while (running) {
      const sentAt = performance.now();
      const c = protocol === "http" ? await countHttp(host, port, 1) : await countTcp(host, port, 1);
      total.total += c.total;
      total.failed += c.failed;
      if (c.failed > 0) total.failedAtMs.push(Math.round(sentAt - started));
      for (const [pod, n] of Object.entries(c.byPod)) total.byPod[pod] = (total.byPod[pod] ?? 0) + n;
      for (const f of c.failures) if (!total.failures.includes(f)) total.failures.push(f);
      const pause = everyMs - (performance.now() - sentAt);
      if (running && pause > 0)
        await new Promise<void>((resolve) => {
          wake = resolve;
          setTimeout(resolve, pause);
        });
    }
  })();
  return {
    async stop() {
      running = false;
      wake?.();
      await loop;
      return total;
    },
  };
}

/** "mail-0 31, mail-1 29 · 2 failed (ECONNREFUSED)", for the demo and test logs. */
export function formatCount(c: TrafficCount): string {
  const pods = Object.entries(c.byPod)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([pod, n]) => `${pod} ${n}`);
  const failed = c.failed === 0 ? "" : ` · ${c.failed} failed (${c.failures.join(", ")})`;
  return `${pods.length === 0 ? "nobody" : pods.join(", ")}${failed}`;
}

interface Answer {
  pod?: string;
  failure?: string;
}

async function countEach(count: number, once: () => Promise<Answer>): Promise<TrafficCount> {
  const result: TrafficCount = { total: count, byPod: {}, failed: 0, failures: [] };
  for (let i = 0; i < count; i++) {
    const answer: Answer = await once().catch((error: unknown) => ({ failure: reason(error) }));
    if (answer.pod !== undefined) result.byPod[answer.pod] = (result.byPod[answer.pod] ?? 0) + 1;
    if (answer.failure !== undefined) {
      result.failed++;
      if (!result.failures.includes(answer.failure)) result.failures.push(answer.failure);
    }
  }
  return result;
}

function httpOnce(host: string, port: number): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host, port, path: "/", localAddress: CLIENT_ADDRESS, agent: false, timeout: TIMEOUT_MS },
      (res) => {
        res.resume();
        res.on("end", () => {
          const pod = typeof res.headers["x-pod"] === "string" ? res.headers["x-pod"] : "?";
          const status = res.statusCode ?? 0;
          resolve(status >= 200 && status < 300 ? { pod } : { pod, failure: `${pod}: HTTP ${status}` });
        });
      },
    );
    req.on("timeout", () => req.destroy(new Error("timeout")));
    req.on("error", reject);
    req.end();
  });
}

function tcpOnce(host: string, port: number): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host, port, localAddress: CLIENT_ADDRESS, timeout: TIMEOUT_MS });
    let greeting = "";
    socket.setEncoding("utf8");
    socket.on("data", (chunk: string) => {
      greeting += chunk;
    });
    socket.on("timeout", () => socket.destroy(new Error("timeout")));
    socket.on("error", reject);
    socket.on("close", () => {
      const pod = /^220 (\S+) ready/.exec(greeting)?.[1];
      resolve(pod === undefined ? { failure: "no greeting" } : { pod });
    });
  });
}

async function postgresOnce(
  host: string,
  port: number,
  login: PostgresLogin,
  sql: string,
  podByAddress: Readonly<Record<string, string>>,
): Promise<Answer> {
  const client = new pg.Client({
    host,
    port,
    ...login,
    ssl: false,
    connectionTimeoutMillis: TIMEOUT_MS,
    query_timeout: TIMEOUT_MS,
    // pg connects its socket with (port, host) only: bind it to the client address like the other requests.
    stream: () => boundSocket(CLIENT_ADDRESS),
  });
  // A server that goes away mid-session emits 'error' on the client; the failed query already reports it.
  client.on("error", () => undefined);
  try {
    await client.connect();
    const row = (await client.query({ text: sql, rowMode: "array" })).rows[0] as unknown[] | undefined;
    const address = String(row?.[0] ?? "").replace(/\/\d+$/, "");
    return { pod: podByAddress[address] ?? address };
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** A TCP socket whose `connect(port, host)` binds `localAddress` first. */
function boundSocket(localAddress: string): Socket {
  const socket = new Socket();
  const connectTo = socket.connect.bind(socket) as (options: {
    port: number;
    host: string;
    localAddress: string;
  }) => Socket;
  Object.assign(socket, {
    connect: (port: number, host: string) => connectTo({ port, host, localAddress }),
  });
  return socket;
}

function reason(error: unknown): string {
  // A server's error names what it refused ("cannot execute INSERT in a read-only transaction"); its SQLSTATE does not.
  if (error instanceof pg.DatabaseError) return error.message;
  return (error as { code?: string }).code ?? (error instanceof Error ? error.message : String(error));
}
