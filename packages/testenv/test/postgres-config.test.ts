import { describe, expect, it } from "vitest";
import { renderPgHba, validateUsers } from "../src/internal/postgres-config.ts";

describe("validateUsers", () => {
  it.each([
    [[{ name: "App", password: "x" }], /users\[0\]\.name "App"/],
    [[{ name: "a; drop", password: "x" }], /users\[0\]\.name/],
    [[{ name: "postgres", password: "x" }], /reserved/],
    [[{ name: "a" }], /users\[0\]\.password is required/],
    [[{ name: "a", certOnly: true, password: "x" }], /users\[0\]\.password must not be set/],
    [
      [
        { name: "a", password: "x" },
        { name: "a", password: "y" },
      ],
      /users\[1\]\.name "a" is listed twice/,
    ],
  ])("rejects %j", (users, message) => {
    expect(() => validateUsers(users)).toThrow(message);
  });

  it("accepts password and cert-only users", () => {
    expect(() =>
      validateUsers([
        { name: "app", password: "x" },
        { name: "reader_2", certOnly: true },
      ]),
    ).not.toThrow();
  });
});

describe("renderPgHba", () => {
  it("requires a client certificate for cert-only users and allows SCRAM with or without TLS for others", () => {
    const lines = renderPgHba([
      { name: "app", password: "x" },
      { name: "cu", certOnly: true },
    ]).split("\n");
    expect(lines).toContain("hostssl all cu all cert");
    expect(lines).toContain("hostnossl all cu all reject");
    expect(lines).toContain("hostssl all all all scram-sha-256");
    expect(lines).toContain("hostnossl all all all scram-sha-256");
    // pg_hba.conf is first-match: the cert rule must come before the catch-all password rule.
    expect(lines.indexOf("hostssl all cu all cert")).toBeLessThan(
      lines.indexOf("hostssl all all all scram-sha-256"),
    );
  });
});
