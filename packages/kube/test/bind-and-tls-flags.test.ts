import { describe, expect, it } from "vitest";
import { splitHostPort } from "../src/index.js";
import { parseMetricsTlsFlags } from "../src/metrics-tls-flags.js";

describe("splitHostPort", () => {
  it.each([
    ["127.0.0.1:8080", { host: "127.0.0.1", port: 8080 }],
    ["localhost:0", { host: "localhost", port: 0 }],
    [":8081", { host: "", port: 8081 }],
    ["[::1]:9090", { host: "::1", port: 9090 }],
    ["[::]:65535", { host: "::", port: 65535 }],
  ])("splits %s", (text, address) => {
    expect(splitHostPort(text)).toEqual(address);
  });

  it.each([["8080"], ["localhost"], [":70000"], [":"], [":http"], ["::1:8080"], ["[::1]"], [""]])(
    "rejects %j",
    (text) => {
      expect(splitHostPort(text)).toBeUndefined();
    },
  );
});

describe("parseMetricsTlsFlags", () => {
  const values = (entries: Record<string, string>) => new Map(Object.entries(entries));

  it("reads both files, or neither (a self-signed certificate)", () => {
    expect(parseMetricsTlsFlags(values({}))).toEqual({ ok: true, files: undefined });
    expect(
      parseMetricsTlsFlags(
        values({ "metrics-tls-cert-file": "/tls/tls.crt", "metrics-tls-private-key-file": "/tls/tls.key" }),
      ),
    ).toEqual({ ok: true, files: { certFile: "/tls/tls.crt", keyFile: "/tls/tls.key" } });
  });

  it.each([
    [{ "metrics-tls-cert-file": "/tls/tls.crt" }, "--metrics-tls-private-key-file is required"],
    [{ "metrics-tls-private-key-file": "/tls/tls.key" }, "--metrics-tls-cert-file is required"],
  ])("names the missing flag when only one is given (%j)", (given, error) => {
    const result = parseMetricsTlsFlags(values(given));
    expect(result.ok).toBe(false);
    expect(!result.ok && result.error).toContain(error);
  });
});
