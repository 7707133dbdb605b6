import { request } from "node:https";
import type { ControlPlaneInfo } from "@swh/testenv";
import { parsePromText, type Sample } from "./prom-text.js";

/** Reads kube-apiserver's own /metrics with the admin token. */
export function readApiServerMetrics(info: ControlPlaneInfo): Promise<Sample[]> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${info.server}/metrics`,
      { ca: info.caPem, headers: { authorization: `Bearer ${info.adminToken}` } },
      (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => {
          body += chunk;
        });
        res.on("end", () =>
          res.statusCode === 200
            ? resolve(parsePromText(body))
            : reject(new Error(`GET /metrics: HTTP ${res.statusCode}`)),
        );
      },
    );
    req.on("error", reject);
    req.end();
  });
}

const WRITE_VERBS = new Set(["POST", "PUT", "PATCH", "DELETE", "APPLY", "CREATE", "UPDATE"]);

/** Write requests (create/update/patch/delete) the API server has served, per `resource[/subresource]`. */
export function writesByResource(samples: readonly Sample[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const s of samples) {
    if (s.name !== "apiserver_request_total" || !WRITE_VERBS.has((s.labels.verb ?? "").toUpperCase()))
      continue;
    const key = s.labels.subresource
      ? `${s.labels.resource}/${s.labels.subresource}`
      : (s.labels.resource ?? "?");
    out.set(key, (out.get(key) ?? 0) + s.value);
  }
  return out;
}

/** `after - before` per key, keeping only keys that changed. */
export function diffCounts(
  before: ReadonlyMap<string, number>,
  after: ReadonlyMap<string, number>,
): Map<string, number> {
  const out = new Map<string, number>();
  for (const [k, v] of after) {
    const d = v - (before.get(k) ?? 0);
    if (d !== 0) out.set(k, d);
  }
  return out;
}
