import { describe, expect, it } from "vitest";
import { parseBindAddress, startHealthServer } from "../src/index.js";
import { memoryLogger } from "./support/quiet-logger.js";

describe("parseBindAddress", () => {
  it.each([
    [":8081", { host: undefined, port: 8081 }],
    ["0.0.0.0:8081", { host: "0.0.0.0", port: 8081 }],
    ["127.0.0.1:0", { host: "127.0.0.1", port: 0 }],
    ["[::]:8443", { host: "::", port: 8443 }],
    ["[fd00:10:244::1]:8443", { host: "fd00:10:244::1", port: 8443 }],
  ])("reads %s", (text, address) => {
    expect(parseBindAddress("--health-bind-address", text)).toEqual({ ok: true, address });
  });

  it("reads 0 as disabled only where the flag allows it", () => {
    expect(parseBindAddress("--metrics-bind-address", "0", { disableWithZero: true })).toEqual({
      ok: true,
      address: undefined,
    });
    expect(parseBindAddress("--metrics-bind-address", "0")).toEqual({
      ok: false,
      error: '--metrics-bind-address must be host:port, [v6]:port, :port, got "0"',
    });
  });

  it.each([["8080"], ["localhost"], [":70000"], ["::1:8080"]])("rejects %j naming the flag", (text) => {
    const result = parseBindAddress("--health-bind-address", text, { disableWithZero: true });
    expect(result).toEqual({
      ok: false,
      error: `--health-bind-address must be host:port, [v6]:port, :port or 0 (disabled), got "${text}"`,
    });
  });

  it("`:port` listens on every interface: IPv4 and, on a dual-stack host, IPv6 loopback answer", async () => {
    const parsed = parseBindAddress("--health-bind-address", ":0");
    if (!parsed.ok || parsed.address === undefined) throw new Error("expected an address");
    const server = await startHealthServer({ ...parsed.address, ready: () => true, logger: memoryLogger() });
    try {
      expect((await fetch(`http://127.0.0.1:${server.port}/healthz`)).status).toBe(200);
      expect((await fetch(`http://[::1]:${server.port}/healthz`)).status).toBe(200);
    } finally {
      await server.close();
    }
  });
});
