import { X509Certificate } from "node:crypto";
import { describe, expect, it } from "vitest";
import { makeCa } from "../src/index.ts";

describe("makeCa", () => {
  const ca = makeCa("unit-test-ca");

  it("is a self-signed CA", () => {
    const cert = new X509Certificate(ca.certPem);
    expect(cert.ca).toBe(true);
    expect(cert.subject).toBe("CN=unit-test-ca");
    expect(cert.verify(cert.publicKey)).toBe(true);
  });

  it("issues a server certificate for IP and DNS names, signed by the CA", () => {
    const leaf = ca.issue({ commonName: "10.244.9.10", altNames: ["db.example.test"] });
    const cert = new X509Certificate(leaf.certPem);
    expect(cert.ca).toBe(false);
    expect(cert.checkIssued(new X509Certificate(ca.certPem))).toBe(true);
    expect(cert.verify(new X509Certificate(ca.certPem).publicKey)).toBe(true);
    expect(cert.checkIP("10.244.9.10")).toBe("10.244.9.10");
    expect(cert.checkHost("db.example.test")).toBe("db.example.test");
    expect(cert.keyUsage).toEqual(["1.3.6.1.5.5.7.3.1"]);
  });

  it("issues a client certificate whose CN is the user name", () => {
    const leaf = ca.issue({ commonName: "app_user", client: true });
    const cert = new X509Certificate(leaf.certPem);
    expect(cert.subject).toBe("CN=app_user");
    expect(cert.keyUsage).toEqual(["1.3.6.1.5.5.7.3.2"]);
  });
});
