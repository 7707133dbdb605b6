import { execFileSync } from "node:child_process";
import { createPrivateKey, X509Certificate } from "node:crypto";
import { once } from "node:events";
import { createServer } from "node:https";
import type { AddressInfo } from "node:net";
import { connect } from "node:tls";
import { describe, expect, it } from "vitest";
import { createSelfSignedCertificate } from "../src/index.js";

describe("createSelfSignedCertificate", () => {
  it("makes a v3 server certificate Node's parser reads back: names, validity, key, self-signature", () => {
    const now = new Date("2026-12-03T12:00:00Z");
    const pair = createSelfSignedCertificate({
      commonName: "swh-agent",
      altNames: ["localhost", "node-a.example", "127.0.0.1", "::1", "fd00:10:244::5"],
      now,
      days: 30,
    });
    const cert = new X509Certificate(pair.certPem);
    expect(cert.subject).toBe("CN=swh-agent");
    expect(cert.issuer).toBe("CN=swh-agent");
    expect(cert.subjectAltName).toBe(
      "DNS:localhost, DNS:node-a.example, IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1, IP Address:FD00:10:244:0:0:0:0:5",
    );
    expect(new Date(cert.validFromDate).toISOString()).toBe("2026-12-03T11:00:00.000Z");
    expect(new Date(cert.validToDate).toISOString()).toBe("2027-01-02T12:00:00.000Z");
    expect(cert.ca).toBe(false);
    expect(cert.keyUsage).toEqual(["1.3.6.1.5.5.7.3.1"]);
    expect(cert.verify(cert.publicKey)).toBe(true);
    expect(cert.checkPrivateKey(createPrivateKey(pair.keyPem))).toBe(true);
  });

  it("is accepted by openssl as a well-formed certificate", () => {
    const { certPem } = createSelfSignedCertificate({
      commonName: "swh-controller",
      altNames: ["localhost"],
    });
    const text = execFileSync("openssl", ["x509", "-noout", "-text"], { input: certPem, encoding: "utf8" });
    expect(text).toContain("Version: 3 (0x2)");
    expect(text).toContain("ecdsa-with-SHA256");
    expect(text).toMatch(/Basic Constraints: critical\s+CA:FALSE/);
    expect(text).toMatch(/Key Usage: critical\s+Digital Signature/);
    expect(text).toMatch(/Extended Key Usage:\s+TLS Web Server Authentication/);
  });

  it("serves TLS that a client trusting exactly this certificate verifies, host name included", async () => {
    const pair = createSelfSignedCertificate({
      commonName: "swh-agent",
      altNames: ["localhost", "127.0.0.1"],
    });
    const server = createServer({ cert: pair.certPem, key: pair.keyPem }, (_req, res) => res.end("ok"));
    server.listen(0, "127.0.0.1");
    await once(server, "listening");
    try {
      const socket = connect({
        host: "127.0.0.1",
        port: (server.address() as AddressInfo).port,
        ca: pair.certPem,
        servername: "localhost",
      });
      await once(socket, "secureConnect");
      expect(socket.authorized).toBe(true);
      expect(socket.getPeerX509Certificate()?.fingerprint256).toBe(
        new X509Certificate(pair.certPem).fingerprint256,
      );
      socket.end();
    } finally {
      server.close();
    }
  });

  it("makes a new key and serial every time", () => {
    const a = new X509Certificate(createSelfSignedCertificate({ commonName: "x" }).certPem);
    const b = new X509Certificate(createSelfSignedCertificate({ commonName: "x" }).certPem);
    expect(a.serialNumber).not.toBe(b.serialNumber);
    expect(a.publicKey.export({ type: "spki", format: "pem" })).not.toBe(
      b.publicKey.export({ type: "spki", format: "pem" }),
    );
  });
});
