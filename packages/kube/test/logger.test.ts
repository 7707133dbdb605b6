import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { createLogger, parseLogLevel, REDACTED } from "../src/index.js";

function capture() {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk, _enc, cb) {
      for (const l of String(chunk).split("\n").filter(Boolean)) lines.push(JSON.parse(l));
      cb();
    },
  });
  return { stream, lines };
}

const fixedNow = () => new Date("2026-01-02T03:04:05.000Z");

describe("createLogger", () => {
  it("writes one JSON object per line with level, time, msg and fields", () => {
    const { stream, lines } = capture();
    createLogger({ stream, now: fixedNow, base: { app: "agent" } }).info("started", { node: "n1", port: 9 });
    expect(lines).toEqual([
      { level: "info", time: "2026-01-02T03:04:05.000Z", msg: "started", app: "agent", node: "n1", port: 9 },
    ]);
  });

  it("drops lines below the configured level", () => {
    const { stream, lines } = capture();
    const log = createLogger({ stream, level: "warn" });
    log.debug("d");
    log.info("i");
    log.warn("w");
    log.error("e");
    expect(lines.map((l) => l.msg)).toEqual(["w", "e"]);
  });

  it("child loggers add their fields to every line", () => {
    const { stream, lines } = capture();
    createLogger({ stream }).child({ component: "queue" }).child({ queue: "swh" }).info("x");
    expect(lines[0]).toMatchObject({ component: "queue", queue: "swh", msg: "x" });
  });

  it.each([
    ["password"],
    ["dbPassword"],
    ["passwd"],
    ["token"],
    ["bearerToken"],
    ["clientSecret"],
    ["key"],
    ["privateKey"],
    ["tls.key"],
    ["Authorization"],
  ])("never prints a field named %s, however deeply nested", (name) => {
    const { stream, lines } = capture();
    const secret = "s3cr3t-value";
    createLogger({ stream, level: "debug" })
      .child({ [name]: secret })
      .error("oops", {
        [name]: secret,
        nested: { deeper: [{ [name]: secret }] },
        err: Object.assign(new Error("x"), { [name]: secret }),
      });
    const text = JSON.stringify(lines);
    expect(text).not.toContain(secret);
    expect(lines[0]?.[name]).toBe(REDACTED);
  });

  it("prints errors with name, message and cause, and survives cycles", () => {
    const { stream, lines } = capture();
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = cyclic;
    const err = new Error("outer", { cause: new Error("inner") });
    createLogger({ stream }).error("failed", { err, cyclic });
    expect(lines[0]?.err).toMatchObject({ name: "Error", message: "outer", cause: { message: "inner" } });
    expect(lines[0]?.cyclic).toEqual({ a: 1, self: "[Circular]" });
  });

  it("parseLogLevel names a bad value", () => {
    expect(parseLogLevel("DEBUG")).toBe("debug");
    expect(() => parseLogLevel("loud")).toThrow(/log level: "loud"/);
  });
});
