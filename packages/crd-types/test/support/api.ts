/**
 * A minimal HTTPS client for the test control plane: the integration tests look at raw API responses (status
 * codes, Status causes, Table rows), which a generated client would hide. Admin identity, test use only.
 */
import { request } from "node:https";
import type { ControlPlaneInfo } from "@swh/testenv";

export interface ApiResponse {
  status: number;
  body: Record<string, unknown>;
}

/** Sends one request to the API server and returns its status and parsed JSON body. */
export function callApi(
  info: Pick<ControlPlaneInfo, "server" | "caPem" | "adminToken">,
  method: "GET" | "POST" | "PUT" | "DELETE",
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<ApiResponse> {
  const url = new URL(path, info.server);
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method,
        ca: info.caPem,
        headers: {
          authorization: `Bearer ${info.adminToken}`,
          accept: "application/json",
          ...(body === undefined ? {} : { "content-type": "application/json" }),
          ...headers,
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8");
          try {
            resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) as Record<string, unknown> });
          } catch (error) {
            reject(
              new Error(`${method} ${path}: ${res.statusCode} non-JSON body: ${text.slice(0, 200)}`, {
                cause: error,
              }),
            );
          }
        });
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

/** API path of the ServiceWithHealthchecks collection of `namespace`. */
export function swhPath(namespace: string, name?: string): string {
  const base = `/apis/network.deckhouse.io/v1alpha1/namespaces/${namespace}/servicewithhealthchecks`;
  return name === undefined ? base : `${base}/${name}`;
}
