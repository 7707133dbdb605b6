import { describe, expect, it } from "vitest";
import { ProbeConfigError, probeTcp } from "../src/index.js";
import { closedPort, startTcpServer } from "./helpers/servers.js";

const HOST = "127.0.0.1";
/** A deadline no connect on loopback needs, however loaded the machine: no test here expects a Timeout. */
const timeoutMs = 10_000;

describe("probeTcp", () => {
  it("succeeds when the port accepts a connection and writes nothing to the application", async () => {
    const received: Buffer[] = [];
    let closed!: () => void;
    const sawClose = new Promise<void>((resolve) => {
      closed = resolve;
    });
    const server = await startTcpServer(HOST, (socket) => {
      socket.on("data", (d) => received.push(d));
      socket.on("close", closed);
    });
    const result = await probeTcp({ host: HOST, port: server.port }, { timeoutMs });
    expect(result).toMatchObject({ ok: true });
    expect(result.reason).toBeUndefined();
    await sawClose;
    expect(server.accepted()).toBe(1);
    expect(Buffer.concat(received).length).toBe(0);
  });

  it("ends the connection with a reset once connected, as HAProxy's checks do, so no side keeps a TIME_WAIT", async () => {
    let reset!: (code: string | undefined) => void;
    const serverSaw = new Promise<string | undefined>((resolve) => {
      reset = resolve;
    });
    const server = await startTcpServer(HOST, (socket) => {
      socket.on("error", (err: NodeJS.ErrnoException) => reset(err.code));
      socket.on("end", () => reset("FIN"));
    });
    const result = await probeTcp({ host: HOST, port: server.port }, { timeoutMs });
    expect(result).toMatchObject({ ok: true });
    expect(await serverSaw).toBe("ECONNRESET");
  });

  it("reports ConnectionRefused for a closed port", async () => {
    const result = await probeTcp({ host: HOST, port: await closedPort(HOST) }, { timeoutMs });
    expect(result).toMatchObject({ ok: false, reason: "ConnectionRefused" });
    expect(result.message).toContain("ECONNREFUSED");
  });

  it("returns a cancelled result when the signal is already aborted", async () => {
    const server = await startTcpServer(HOST);
    const result = await probeTcp(
      { host: HOST, port: server.port },
      { timeoutMs, signal: AbortSignal.abort() },
    );
    expect(result).toMatchObject({ ok: false, reason: "Error" });
    expect(result.message).toContain("cancelled");
  });

  it("refuses names and bad ports before connecting anywhere", () => {
    expect(() => probeTcp({ host: "localhost", port: 80 }, { timeoutMs })).toThrow(ProbeConfigError);
    expect(() => probeTcp({ host: HOST, port: 0 }, { timeoutMs })).toThrow(/port/);
  });
});
