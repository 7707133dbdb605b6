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
  it("reads both files, or neither (a self-signed certificate)", () => {
    expect(parseMetricsTlsFlags(undefined, undefined)).toEqual({ ok: true, files: undefined });
    expect(parseMetricsTlsFlags("", "")).toEqual({ ok: true, files: undefined });
    expect(parseMetricsTlsFlags("/tls/tls.crt", "/tls/tls.key")).toEqual({
      ok: true,
      files: { certFile: "/tls/tls.crt", keyFile: "/tls/tls.key" },
    });
  });

  it.each([
    ["/tls/tls.crt", undefined, "--metrics-tls-private-key-file is required"],
    [undefined, "/tls/tls.key", "--metrics-tls-cert-file is required"],
  ])("names the missing flag when only one is given (%s, %s)", (cert, key, error) => {
    const result = parseMetricsTlsFlags(cert, key);
    expect(result.ok).toBe(false);
    expect(!result.ok && result.error).toContain(error);
  });
});
