/**
 * probeGrpc against gRPC C-core (Debian's python3-grpcio, `test/fixtures/grpc-core/health-server.py`): a third
 * HTTP/2 and HPACK implementation beside nghttp2 (grpc-js, node:http2 in the other tests) and Go's (checked by
 * hand, ADR 0046), so that the probe's own HTTP/2 client is judged against the encoders users run. C-core 1.51
 * sends raw strings and adds fields to its table without referring back to them within a call; Huffman strings
 * and references are exercised by nghttp2 (hpack.test.ts, grpc-js) and were by grpc-go.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { probeGrpc } from "../src/index.js";

const HOST = "127.0.0.1";
const SERVER = fileURLToPath(new URL("./fixtures/grpc-core/health-server.py", import.meta.url));
const opts = { timeoutMs: 10_000 };
const children: ChildProcess[] = [];

/** Starts the C-core server; resolves with its port. */
async function startServer(...args: string[]): Promise<number> {
  // Debian's interpreter, where python3-grpcio is installed (a pyenv shim first on PATH would not have it).
  const child = spawn("/usr/bin/python3", [SERVER, HOST, ...args], { stdio: ["pipe", "pipe", "inherit"] });
  children.push(child);
  const [line] = (await once(child.stdout ?? child, "data")) as [Buffer];
  return Number(line.toString().trim());
}

let port: number;
let noHealthPort: number;
beforeAll(async () => {
  port = await startServer();
  noHealthPort = await startServer("--no-health");
});
afterAll(async () => {
  for (const child of children) {
    child.stdin?.end();
    child.kill();
  }
});

describe("probeGrpc against gRPC C-core", () => {
  it("passes while SERVING, and the same again on many fresh connections", async () => {
    for (let i = 0; i < 20; i++)
      expect(await probeGrpc({ host: HOST, port }, { service: "shop.v1.Orders" }, opts)).toMatchObject({
        ok: true,
        message: "SERVING",
      });
    expect(await probeGrpc({ host: HOST, port }, {}, opts)).toMatchObject({ ok: true });
  });

  it("fails NOT_SERVING with GRPCNotServing and an unknown service with GRPCServiceUnknown", async () => {
    expect(await probeGrpc({ host: HOST, port }, { service: "shop.v1.Down" }, opts)).toMatchObject({
      ok: false,
      reason: "GRPCNotServing",
    });
    const unknown = await probeGrpc({ host: HOST, port }, { service: "shop.v1.Nope" }, opts);
    expect(unknown).toMatchObject({ ok: false, reason: "GRPCServiceUnknown" });
    expect(unknown.message).toContain("unknown service shop.v1.Nope");
  });

  it("reads long headers and trailers, fields the server adds to its dynamic table until it evicts them", async () => {
    expect(await probeGrpc({ host: HOST, port }, { service: "shop.v1.Metadata" }, opts)).toMatchObject({
      ok: true,
      message: "SERVING",
    });
  });

  it("a server without the health service → GRPCUnimplemented", async () => {
    expect(await probeGrpc({ host: HOST, port: noHealthPort }, {}, opts)).toMatchObject({
      ok: false,
      reason: "GRPCUnimplemented",
    });
  });
});
