/**
 * TCP send/expect (ADR 0036): what is written, what the answer must contain, and every hostile answer ending with
 * a reason — a wrong answer, an early close, an endless stream, a silent server — within bounded reads.
 */
import type { Socket } from "node:net";
import { waitFor } from "@swh/testenv";
import { describe, expect, it } from "vitest";
import { MAX_TCP_ANSWER_BYTES, ProbeConfigError, probeTcp } from "../src/index.js";
import { ManualClock } from "./helpers/manual-clock.js";
import { closedPort, flood, startTcpServer } from "./helpers/servers.js";

const HOST = "127.0.0.1";
/** For protocol verdicts: a deadline no exchange on loopback needs, however loaded the machine. */
const generous = { timeoutMs: 10_000 };

/** A server that answers each complete line it receives with `answer(line)`, and records what it received. */
async function lineServer(answer: (line: string, socket: Socket) => void) {
  const received: string[] = [];
  const server = await startTcpServer(HOST, (socket) => {
    let buffered = "";
    socket.on("data", (chunk: Buffer) => {
      buffered += chunk.toString("utf8");
      received.push(chunk.toString("utf8"));
      for (let i = buffered.indexOf("\r\n"); i !== -1; i = buffered.indexOf("\r\n")) {
        answer(buffered.slice(0, i), socket);
        buffered = buffered.slice(i + 2);
      }
    });
  });
  return { ...server, received: () => received.join("") };
}

describe("probeTcp send/expect", () => {
  it("sends the text and passes when the answer contains the expected text (a Redis-like PING)", async () => {
    const server = await lineServer((line, socket) =>
      socket.write(line === "PING" ? "+PONG\r\n" : "-ERR\r\n"),
    );
    const result = await probeTcp(
      { host: HOST, port: server.port },
      { send: "PING\r\n", expect: "+PONG" },
      generous,
    );
    expect(result).toMatchObject({ ok: true });
    expect(result.message).toContain('contains "+PONG"');
    expect(server.received()).toBe("PING\r\n");
  });

  it("fails with TCPResponse when the server answers something else and closes", async () => {
    const server = await lineServer((_line, socket) => socket.end("role:slave\r\n"));
    const result = await probeTcp(
      { host: HOST, port: server.port },
      { send: "ROLE\r\n", expect: "master" },
      generous,
    );
    expect(result).toMatchObject({ ok: false, reason: "TCPResponse" });
    expect(result.message).toBe('the server closed the connection after 12 bytes without "master"');
  });

  it("finds the expected text split over several writes (a match across chunk boundaries)", async () => {
    const server = await startTcpServer(HOST, (socket) => {
      socket.setNoDelay(true);
      const parts = ["*3\r\n$6\r\nma", "st", "er\r\n"];
      const next = () => {
        const part = parts.shift();
        if (part !== undefined) socket.write(part, () => setTimeout(next, 20));
      };
      next();
    });
    const result = await probeTcp({ host: HOST, port: server.port }, { expect: "master" }, generous);
    expect(result).toMatchObject({ ok: true });
  });

  it("compares UTF-8 bytes: a multi-byte expectation matches the same text", async () => {
    const server = await startTcpServer(HOST, (socket) => socket.write("état: prêt\n"));
    const ok = await probeTcp({ host: HOST, port: server.port }, { expect: "prêt" }, generous);
    expect(ok).toMatchObject({ ok: true });
  });

  it("reads at most the bound: an endless answer without the text fails with TCPResponse", async () => {
    const server = await startTcpServer(HOST, (socket) => flood(socket, Buffer.alloc(1500, "x")));
    const result = await probeTcp({ host: HOST, port: server.port }, { expect: "master" }, generous);
    expect(result).toMatchObject({ ok: false, reason: "TCPResponse" });
    expect(result.message).toBe(
      `the first ${MAX_TCP_ANSWER_BYTES} bytes of the answer do not contain "master"`,
    );
  });

  it("looks only at the first 4 KiB: a text that starts inside and ends beyond them does not count", async () => {
    const answer = `${"x".repeat(MAX_TCP_ANSWER_BYTES - 3)}master`;
    const server = await startTcpServer(HOST, (socket) => socket.end(answer));
    const result = await probeTcp({ host: HOST, port: server.port }, { expect: "master" }, generous);
    expect(result).toMatchObject({ ok: false, reason: "TCPResponse" });
    const fits = await probeTcp({ host: HOST, port: server.port }, { expect: "xxxm" }, generous);
    expect(fits).toMatchObject({ ok: true });
  });

  it("a silent server → Timeout while waiting for the answer", async () => {
    const server = await lineServer(() => {});
    const clock = new ManualClock();
    const config = { send: "HELLO\r\n", expect: "ready" };
    const probe = probeTcp({ host: HOST, port: server.port }, config, { timeoutMs: 400, clock });
    // The text is sent in the same step that starts the wait: once it arrived, the probe is waiting.
    await waitFor("the text at the server", () => server.received() === "HELLO\r\n");
    await clock.advance(400);
    expect(await probe).toMatchObject({
      ok: false,
      reason: "Timeout",
      message: "timed out after 400 ms while waiting for the answer",
    });
  });

  it("send without expect passes once connected, and never names what it sent (it may hold a password)", async () => {
    const server = await lineServer(() => {});
    const result = await probeTcp(
      { host: HOST, port: server.port },
      { send: "AUTH s3cret-password\r\n" },
      generous,
    );
    expect(result).toMatchObject({ ok: true });
    expect(result.message).not.toContain("s3cret");
    await waitFor("the text at the server", () => server.received() === "AUTH s3cret-password\r\n");
  });

  it("a closed port is ConnectionRefused, not TCPResponse", async () => {
    const result = await probeTcp({ host: HOST, port: await closedPort(HOST) }, { expect: "x" }, generous);
    expect(result).toMatchObject({ ok: false, reason: "ConnectionRefused" });
  });

  it("refuses settings that could never pass, naming the field", () => {
    const target = { host: HOST, port: 7 };
    expect(() => probeTcp(target, { send: "" }, generous)).toThrow(ProbeConfigError);
    expect(() => probeTcp(target, { expect: "" }, generous)).toThrow(/^expect: /);
    expect(() => probeTcp(target, { expect: "x".repeat(MAX_TCP_ANSWER_BYTES + 1) }, generous)).toThrow(
      /expect: is longer than/,
    );
  });
});
