import { createServer, request } from "node:https";
import type { AddressInfo } from "node:net";
import { makeCa } from "@swh/testenv";
import { afterEach, describe, expect, it } from "vitest";
import { type ApiMeter, describeRequest, startApiMeter } from "../src/index.js";

describe("describeRequest", () => {
  it.each([
    ["GET", "/api/v1/pods?fieldSelector=spec.nodeName%3Dn&watch=true", "watch", "pods"],
    ["GET", "/api/v1/watch/namespaces/a/services", "watch", "services"],
    ["GET", "/api/v1/services", "list", "services"],
    ["GET", "/apis/network.deckhouse.io/v1alpha1/servicewithhealthchecks", "list", "servicewithhealthchecks"],
    ["PUT", "/apis/coordination.k8s.io/v1/namespaces/swh-system/leases/swh-agent-n", "update", "leases"],
    ["GET", "/apis/coordination.k8s.io/v1/namespaces/swh-system/leases/swh-agent-n", "get", "leases"],
    ["POST", "/apis/discovery.k8s.io/v1/namespaces/a/endpointslices", "create", "endpointslices"],
    ["PUT", "/apis/x.io/v1/namespaces/a/things/t/status", "update", "things/status"],
    ["GET", "/api/v1/namespaces", "list", "namespaces"],
    ["DELETE", "/api/v1/namespaces/a", "delete", "namespaces"],
  ])("%s %s is %s %s", (method, url, verb, resource) => {
    expect(describeRequest(method, url)).toEqual({ verb, resource });
  });
});

describe("startApiMeter", () => {
  let meter: ApiMeter | undefined;
  let close: (() => void) | undefined;
  afterEach(async () => {
    await meter?.close();
    close?.();
  });

  it("forwards requests with their credentials and counts requests, bytes and watch events", async () => {
    const ca = makeCa();
    const cert = ca.issue({ commonName: "upstream", altNames: ["127.0.0.1"] });
    const seen: string[] = [];
    const events = [
      '{"type":"ADDED","object":{}}\n{"type":"BOOKMARK","object":{}}\n{"type":"MODIFIED",',
      '"object":{}}\n{"type":"DELETED","object":{}}\n',
    ];
    const upstream = createServer({ cert: cert.certPem, key: cert.keyPem }, (req, res) => {
      seen.push(`${req.method} ${req.url} ${req.headers.authorization}`);
      req.resume();
      if (req.url?.includes("watch=true")) {
        res.write(events[0]);
        res.end(events[1]);
      } else res.end("0123456789");
    });
    await new Promise<void>((resolve) => upstream.listen(0, "127.0.0.1", resolve));
    close = () => upstream.close();
    const { port } = upstream.address() as AddressInfo;
    meter = await startApiMeter({ server: `https://127.0.0.1:${port}`, caPem: ca.certPem });

    const send = (method: string, path: string, body?: string) =>
      new Promise<string>((resolve, reject) => {
        const url = new URL(path, meter?.endpoint.server);
        const req = request(
          url,
          { method, ca: meter?.endpoint.caPem, headers: { authorization: "Bearer t" } },
          (res) => {
            let text = "";
            res.on("data", (c) => {
              text += c;
            });
            res.on("end", () => resolve(text));
          },
        );
        req.on("error", reject);
        req.end(body);
      });
    expect(await send("GET", "/api/v1/pods?watch=true")).toContain("DELETED");
    expect(await send("PUT", "/apis/coordination.k8s.io/v1/namespaces/x/leases/l", "abcde")).toBe(
      "0123456789",
    );

    expect(seen).toEqual([
      "GET /api/v1/pods?watch=true Bearer t",
      "PUT /apis/coordination.k8s.io/v1/namespaces/x/leases/l Bearer t",
    ]);
    expect(meter.usage()).toEqual({
      requests: { "watch pods": 1, "update leases": 1 },
      bytesReceived: events.join("").length + 10,
      bytesSent: 5,
      watchEvents: { pods: 3 },
      bookmarks: { pods: 1 },
    });
  });
});
