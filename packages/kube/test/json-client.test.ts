import { once } from "node:events";
import { createServer as createHttpServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { KubeConfig } from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createJsonClient, isRetryableApiError, KubeApiError } from "../src/index.js";

/** What the local server saw of one request. */
interface Seen {
  method: string | undefined;
  url: string | undefined;
  headers: IncomingMessage["headers"];
  body: string;
}

let server: Server;
let seen: Seen[] = [];
// The answer the server gives next: status, content type, body text.
let answer: { status: number; type: string; text: string } = {
  status: 200,
  type: "application/json",
  text: "{}",
};

beforeAll(async () => {
  server = createHttpServer(async (req, res) => {
    let body = "";
    for await (const chunk of req) body += chunk;
    seen.push({ method: req.method, url: req.url, headers: req.headers, body });
    res.writeHead(answer.status, { "content-type": answer.type }).end(answer.text);
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
});

afterAll(() => server.close());

/** A client for the local server at `prefix`, as user "tester" with a bearer token. */
function client(prefix = "") {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [
      {
        name: "local",
        server: `http://127.0.0.1:${(server.address() as AddressInfo).port}${prefix}`,
        skipTLSVerify: true,
      },
    ],
    users: [{ name: "tester", token: "secret-token" }],
    contexts: [{ name: "local", cluster: "local", user: "tester" }],
    currentContext: "local",
  });
  return createJsonClient(kc);
}

function reply(status: number, text: string, type = "application/json") {
  seen = [];
  answer = { status, type, text };
}

describe("createJsonClient", () => {
  it("sends method, path below the server's path prefix, query, token and JSON body; resolves with the JSON answer", async () => {
    reply(201, JSON.stringify({ metadata: { name: "x", resourceVersion: "7" } }));
    const created = await client("/clusters/one/").request<{ metadata: { resourceVersion: string } }>({
      method: "PATCH",
      path: "/api/v1/namespaces/ns/configmaps/x",
      query: { fieldManager: "swh-test", dryRun: undefined },
      body: { data: { a: "b" } },
      contentType: "application/merge-patch+json",
    });
    expect(created.metadata.resourceVersion).toBe("7");
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({
      method: "PATCH",
      url: "/clusters/one/api/v1/namespaces/ns/configmaps/x?fieldManager=swh-test",
      body: '{"data":{"a":"b"}}',
    });
    expect(seen[0]?.headers).toMatchObject({
      authorization: "Bearer secret-token",
      "content-type": "application/merge-patch+json",
      accept: "application/json",
    });
  });

  it("sends no body and no content type when there is no body", async () => {
    reply(200, "{}");
    await client().request({ method: "GET", path: "/api/v1/namespaces" });
    expect(seen[0]).toMatchObject({ method: "GET", url: "/api/v1/namespaces", body: "" });
    expect(seen[0]?.headers["content-type"]).toBeUndefined();
  });

  it("rejects an error answer with KubeApiError carrying the status code and the parsed Status", async () => {
    reply(
      409,
      JSON.stringify({ kind: "Status", reason: "AlreadyExists", message: 'services "x" already exists' }),
    );
    const err = await client()
      .request({ method: "POST", path: "/api/v1/namespaces/ns/services", body: {} })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(KubeApiError);
    expect(err).toMatchObject({ code: 409, body: { reason: "AlreadyExists" } });
    expect((err as Error).message).toBe(
      'POST /api/v1/namespaces/ns/services: HTTP 409: services "x" already exists',
    );
    expect(isRetryableApiError(err)).toBe(false);
  });

  it("keeps a non-JSON error answer as text, and a 503 is worth retrying", async () => {
    reply(503, "upstream connect error", "text/plain");
    const err = await client()
      .request({ method: "GET", path: "/api/v1/nodes" })
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 503, body: "upstream connect error" });
    expect(isRetryableApiError(err)).toBe(true);
  });

  it("rejects a success answer that is not JSON instead of returning undefined", async () => {
    reply(200, "<html>proxy login</html>", "text/html");
    await expect(client().request({ method: "GET", path: "/api/v1/nodes" })).rejects.toThrow(
      "GET /api/v1/nodes: the answer is not JSON: <html>proxy login</html>",
    );
  });

  it("reports a refused connection as a retryable network error", async () => {
    const kc = new KubeConfig();
    kc.loadFromOptions({
      clusters: [{ name: "gone", server: "http://127.0.0.1:1", skipTLSVerify: true }],
      users: [{ name: "u", token: "t" }],
      contexts: [{ name: "gone", cluster: "gone", user: "u" }],
      currentContext: "gone",
    });
    const err = await createJsonClient(kc)
      .request({ method: "GET", path: "/api" })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Error);
    expect(isRetryableApiError(err)).toBe(true);
  });
});
