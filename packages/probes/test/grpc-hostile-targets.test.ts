/**
 * SPEC §8 for gRPC: hostile HTTP/2 targets end within the probe's deadline with a reason, and what the probe reads
 * stays bounded. Same rules as hostile-targets.test.ts: protocol verdicts run under a deadline far beyond what the
 * exchange needs (a regression shows as a `Timeout`); a `Timeout` in a named phase runs on a manual clock that the
 * test advances only once the server has seen the probe reach that phase.
 */
import { once } from "node:events";
import {
  createServer as createHttp2Server,
  type Http2Server,
  constants as h2,
  type ServerHttp2Stream,
} from "node:http2";
import type { AddressInfo, Socket } from "node:net";
import { waitFor } from "@swh/testenv";
import { afterEach, describe, expect, it } from "vitest";
import { probeGrpc } from "../src/index.js";
import { indexedField, literalField } from "../src/internal/hpack/encode.js";
import { encodeFrame, FRAME } from "../src/internal/http2-frames.js";
import { MAX_GRPC_MESSAGE_BYTES } from "../src/probe-grpc.js";
import { ManualClock } from "./helpers/manual-clock.js";
import { flood, startTcpServer } from "./helpers/servers.js";

const HOST = "127.0.0.1";
const generous = { timeoutMs: 10_000 };
const DEADLINE_MS = 400;
const PREFACE = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";

const h2Servers: Http2Server[] = [];
afterEach(async () => {
  await Promise.all(
    h2Servers.splice(0).map((s) => {
      const closed = new Promise((resolve) => s.close(resolve));
      for (const session of sessions.splice(0)) session.destroy();
      return closed;
    }),
  );
});
const sessions: { destroy(): void }[] = [];

/** A real HTTP/2 server (node:http2) whose every request stream is handled by `onStream`. */
async function startH2Server(onStream: (stream: ServerHttp2Stream) => void): Promise<number> {
  const server = createHttp2Server();
  h2Servers.push(server);
  server.on("session", (session) => {
    sessions.push(session);
    session.on("error", () => {});
  });
  server.on("stream", (stream) => {
    stream.on("error", () => {});
    onStream(stream);
  });
  server.listen(0, HOST);
  await once(server, "listening");
  return (server.address() as AddressInfo).port;
}

const SETTINGS = encodeFrame(FRAME.settings, 0, 0);

/** A raw TCP server that records what it receives and otherwise does what `then` scripts. */
async function recordingServer(then: (socket: Socket) => void = () => {}) {
  const received: Buffer[] = [];
  const server = await startTcpServer(HOST, (socket) => {
    socket.on("data", (chunk: Buffer) => received.push(chunk));
    then(socket);
  });
  return { ...server, received: () => Buffer.concat(received) };
}

describe("hostile HTTP/2 targets of a gRPC probe", () => {
  it("a server that never sends its HTTP/2 settings → Timeout while waiting for them", async () => {
    const server = await recordingServer();
    const clock = new ManualClock();
    const probe = probeGrpc({ host: HOST, port: server.port }, {}, { timeoutMs: DEADLINE_MS, clock });
    await waitFor("the client preface at the server", () => server.received().includes(PREFACE));
    await clock.advance(DEADLINE_MS);
    const result = await probe;
    expect(result).toMatchObject({ ok: false, reason: "Timeout" });
    expect(result.message).toContain("waiting for the server's HTTP/2 settings");
  });

  it("a TLS server that never finishes the handshake → Timeout in the TLS handshake", async () => {
    const server = await recordingServer();
    const clock = new ManualClock();
    const probe = probeGrpc(
      { host: HOST, port: server.port },
      { tls: true },
      { timeoutMs: DEADLINE_MS, clock },
    );
    await waitFor("the ClientHello at the server", () => server.received().length > 0);
    await clock.advance(DEADLINE_MS);
    const result = await probe;
    expect(result).toMatchObject({ ok: false, reason: "Timeout" });
    expect(result.message).toContain("in the TLS handshake");
  });

  it("a server that answers the headers and never ends the call → Timeout while reading the response", async () => {
    let seen = false;
    const port = await startH2Server((stream) => {
      seen = true;
      stream.respond({ ":status": 200, "content-type": "application/grpc" });
    });
    const clock = new ManualClock();
    const probe = probeGrpc({ host: HOST, port }, {}, { timeoutMs: DEADLINE_MS, clock });
    await waitFor("the call at the server", () => seen);
    await clock.advance(DEADLINE_MS);
    const result = await probe;
    expect(result).toMatchObject({ ok: false, reason: "Timeout" });
  });

  it("endless headers (CONTINUATION frames forever) → ProtocolError at the header bound", async () => {
    const continuation = encodeFrame(
      FRAME.continuation,
      0,
      1,
      Buffer.concat(Array.from({ length: 100 }, () => literalField("x-a", "a".repeat(100)))),
    );
    const server = await recordingServer((socket) => {
      socket.once("data", () => {
        socket.write(SETTINGS);
        socket.write(
          encodeFrame(FRAME.headers, 0, 1, Buffer.concat([indexedField(8), literalField("x-a", "a")])),
        );
        flood(socket, continuation);
      });
    });
    const result = await probeGrpc({ host: HOST, port: server.port }, {}, generous);
    expect(result).toMatchObject({ ok: false, reason: "ProtocolError" });
    expect(result.message).toContain("headers over the probe's bounds");
  });

  it("a response message of endless DATA → ProtocolError at the message bound", async () => {
    const port = await startH2Server((stream) => {
      stream.respond({ ":status": 200, "content-type": "application/grpc" });
      const chunk = Buffer.alloc(16 * 1024, 1);
      const pump = () => {
        while (!stream.destroyed && stream.write(chunk)) {}
        if (!stream.destroyed) stream.once("drain", pump);
      };
      pump();
    });
    const result = await probeGrpc({ host: HOST, port }, {}, generous);
    expect(result).toMatchObject({ ok: false, reason: "ProtocolError" });
    expect(result.message).toContain(`over ${MAX_GRPC_MESSAGE_BYTES} bytes`);
  });

  it("GOAWAY instead of an answer → ConnectionReset naming GOAWAY", async () => {
    const port = await startH2Server((stream) => stream.session?.goaway(h2.NGHTTP2_ENHANCE_YOUR_CALM, 0));
    const result = await probeGrpc({ host: HOST, port }, {}, generous);
    expect(result).toMatchObject({ ok: false, reason: "ConnectionReset" });
    expect(result.message).toContain("GOAWAY");
  });

  it("RST_STREAM instead of an answer → ConnectionReset naming RST_STREAM", async () => {
    const port = await startH2Server((stream) => stream.close(h2.NGHTTP2_REFUSED_STREAM));
    const result = await probeGrpc({ host: HOST, port }, {}, generous);
    expect(result).toMatchObject({ ok: false, reason: "ConnectionReset" });
    expect(result.message).toContain("RST_STREAM REFUSED_STREAM");
  });

  it("an HTTP/2 server that is not gRPC → ProtocolError", async () => {
    const port = await startH2Server((stream) => {
      stream.respond({ ":status": 404, "content-type": "text/html" });
      stream.end("<h1>no</h1>");
    });
    const result = await probeGrpc({ host: HOST, port }, {}, generous);
    expect(result).toMatchObject({ ok: false, reason: "ProtocolError" });
    expect(result.message).toContain('not a gRPC server: HTTP status 404, content-type "text/html"');
  });

  it("bytes that are not HTTP/2 → ProtocolError", async () => {
    const server = await recordingServer((socket) => {
      socket.once("data", () =>
        socket.write(Buffer.from("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n")),
      );
    });
    const result = await probeGrpc({ host: HOST, port: server.port }, {}, generous);
    expect(result).toMatchObject({ ok: false, reason: "ProtocolError" });
    expect(result.message).toContain("bytes that are not HTTP/2");
  });

  it("a server that closes the connection after its settings → ConnectionReset before answering", async () => {
    const server = await recordingServer((socket) => {
      socket.once("data", () => socket.end(SETTINGS));
    });
    const result = await probeGrpc({ host: HOST, port: server.port }, {}, generous);
    expect(result).toMatchObject({ ok: false, reason: "ConnectionReset" });
    expect(result.message).toBe("the server closed the connection before answering");
  });

  it("a connection reset → ConnectionReset", async () => {
    const server = await recordingServer((socket) => socket.once("data", () => socket.resetAndDestroy()));
    expect(await probeGrpc({ host: HOST, port: server.port }, {}, generous)).toMatchObject({
      ok: false,
      reason: "ConnectionReset",
    });
  });
});
