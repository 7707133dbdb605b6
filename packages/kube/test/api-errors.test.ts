import { once } from "node:events";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { CoreV1Api, KubeConfig, Watch } from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createJsonClient, describeApiError, httpStatusOf } from "../src/index.js";

// One local server answers every request with the API server's Status for a missing object, so each client we
// use meets the same refusal and reports it in its own shape.
const STATUS = {
  kind: "Status",
  apiVersion: "v1",
  status: "Failure",
  message: 'pods "web-0" not found',
  reason: "NotFound",
  code: 404,
};
let server: Server;

beforeAll(async () => {
  server = createServer((_req, res) => {
    res.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify(STATUS));
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
});

afterAll(() => server.close());

function kubeConfig(port = (server.address() as AddressInfo).port): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: "local", server: `http://127.0.0.1:${port}`, skipTLSVerify: true }],
    users: [{ name: "tester", token: "t" }],
    contexts: [{ name: "local", cluster: "local", user: "tester" }],
    currentContext: "local",
  });
  return kc;
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (err) {
    return err;
  }
  throw new Error("expected a rejection");
}

describe("httpStatusOf and describeApiError", () => {
  it("read our KubeApiError (json-client)", async () => {
    const err = await rejection(createJsonClient(kubeConfig()).request({ method: "GET", path: "/api/v1/x" }));
    expect(httpStatusOf(err)).toBe(404);
    expect(describeApiError(err)).toBe('HTTP 404: pods "web-0" not found');
  });

  it("read client-node's ApiException (`code`)", async () => {
    const api = kubeConfig().makeApiClient(CoreV1Api);
    const err = await rejection(api.readNamespacedPod({ namespace: "ns", name: "web-0" }));
    expect(httpStatusOf(err)).toBe(404);
    expect(describeApiError(err)).toBe('HTTP 404: pods "web-0" not found');
  });

  it("read client-node's refused watch (`statusCode`)", async () => {
    const err = await new Promise<unknown>((resolve) => {
      void new Watch(kubeConfig()).watch("/api/v1/pods", {}, () => {}, resolve);
    });
    expect(httpStatusOf(err)).toBe(404);
    expect(describeApiError(err)).toMatch(/^HTTP 404: /);
  });

  it("give no status for a network error, and name the socket error", async () => {
    const closed = createServer();
    closed.listen(0, "127.0.0.1");
    await once(closed, "listening");
    const port = (closed.address() as AddressInfo).port;
    closed.close();
    const err = await rejection(createJsonClient(kubeConfig(port)).request({ method: "GET", path: "/" }));
    expect(httpStatusOf(err)).toBeUndefined();
    expect(describeApiError(err)).toContain("ECONNREFUSED");
  });

  it("keep a description to one bounded line", () => {
    const err = Object.assign(new Error(`HTTP-Code: 500\nHeaders: ${"x".repeat(5000)}`), { code: 500 });
    expect(describeApiError(err)).toBe("HTTP 500: HTTP-Code: 500");
    const page = Object.assign(new Error("boom"), { code: 502, body: "<html>".repeat(1000) });
    expect(describeApiError(page).length).toBe(600);
    expect(httpStatusOf("404")).toBeUndefined();
    expect(httpStatusOf({ code: "ECONNRESET" })).toBeUndefined();
  });
});
