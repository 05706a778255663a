import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createImageChecker, getSizedImageUrl, isPublicAddress } from "../../src/assets/image-check.ts";
import { startHttpServer } from "../helpers/http-server.ts";

describe("image URL check", () => {
  let server: Awaited<ReturnType<typeof startHttpServer>>;
  beforeAll(async () => {
    server = await startHttpServer((req, res) => {
      const url = new URL(req.url!, "http://x");
      if (url.pathname === "/img.png") res.setHeader("content-type", "image/png");
      else if (url.pathname === "/redirect") {
        res.statusCode = 302;
        res.setHeader("location", url.searchParams.get("to") ?? "/img.png");
      } else if (url.pathname === "/proxy" && url.searchParams.get("width") === "500") {
        res.setHeader("content-type", "image/webp");
      } else res.setHeader("content-type", "text/html");
      res.end();
    });
  });
  afterAll(async () => server?.close());
  /** The test server is on 127.0.0.1: checkers that must reach it opt in for its host only. */
  const local = () => ({ allowedPrivateHosts: [new URL(server.url).host] });

  it("accepts empty, rejects twimg, accepts a direct image and retries through the proxy at width 500", async () => {
    const checker = createImageChecker(`${server.url}/proxy`, local());
    expect(await checker.check("")).toMatchObject({ accepted: true });
    expect(await checker.check("https://pbs.twimg.com/a.png")).toMatchObject({ accepted: false });
    expect(await checker.check(`${server.url}/img.png`)).toEqual({
      accepted: true,
      url: `${server.url}/img.png`,
      via: "direct",
    });
    const page = `${server.url}/page.html`;
    expect(await checker.check(page)).toEqual({
      accepted: true,
      url: `${server.url}/proxy?url=${encodeURIComponent(page)}&width=500`,
      via: "proxy",
    });
    expect(server.requests).toContain(`HEAD /proxy?url=${encodeURIComponent(page)}&width=500`);
  });

  it("rejects a non-image without a proxy, and non-URLs", async () => {
    const checker = createImageChecker(undefined, local());
    expect(await checker.check(`${server.url}/page.html`)).toMatchObject({ accepted: false });
    expect(await checker.check("not a url")).toMatchObject({ accepted: false });
    expect(await checker.check("data:image/svg+xml,<svg/>")).toMatchObject({ accepted: true, via: "inline" });
  });

  it("refuses loopback, private, link-local, unspecified and metadata hosts by default, without a request", async () => {
    const checker = createImageChecker(`${server.url}/proxy`);
    const seen = server.requests.length;
    const port = new URL(server.url).port;
    for (const url of [
      `${server.url}/img.png`,
      `http://localhost:${port}/img.png`,
      "http://10.0.0.1/a.png",
      "http://172.16.3.4/a.png",
      "http://192.168.1.1/a.png",
      "http://169.254.169.254/latest/meta-data/",
      "http://100.100.100.200/latest/meta-data/",
      "http://0.0.0.0/a.png",
      "http://2130706433/a.png",
      "http://[::1]/a.png",
      "http://[::]/a.png",
      "http://[fe80::1]/a.png",
      "http://[fd00:ec2::254]/latest/meta-data/",
      "http://[::ffff:127.0.0.1]/a.png",
    ]) {
      const result = await checker.check(url);
      expect(result, url).toMatchObject({ accepted: false });
      expect(result.accepted ? "" : result.reason, url).toMatch(/private, local or metadata address/);
    }
    expect(await checker.check("ftp://example.com/a.png")).toMatchObject({
      accepted: false,
      reason: "Only http(s) image URLs are accepted",
    });
    expect(await checker.check("file:///etc/passwd")).toMatchObject({ accepted: false });
    // Nothing reached the local server (not even through the proxy).
    expect(server.requests.length).toBe(seen);
  });

  it("follows redirects only to allowed hosts: a hop to a local address is refused", async () => {
    const checker = createImageChecker(undefined, local());
    expect(await checker.check(`${server.url}/redirect`)).toMatchObject({ accepted: true, via: "direct" });
    const other = await startHttpServer((_req, res) => {
      res.setHeader("content-type", "image/png");
      res.end();
    });
    try {
      const port = new URL(server.url).port;
      for (const to of [
        `${other.url}/img.png`,
        `http://localhost:${port}/img.png`,
        "http://169.254.169.254/x",
      ]) {
        const result = await checker.check(`${server.url}/redirect?to=${encodeURIComponent(to)}`);
        expect(result, to).toMatchObject({ accepted: false });
        expect(result.accepted ? "" : result.reason).toMatch(/private, local or metadata address/);
      }
      const ftp = await checker.check(
        `${server.url}/redirect?to=${encodeURIComponent("ftp://example.com/a")}`,
      );
      expect(ftp).toMatchObject({ accepted: false, reason: expect.stringMatching(/after a redirect/) });
      expect(other.requests).toEqual([]);
    } finally {
      await other.close();
    }
  });

  it("classifies addresses", () => {
    for (const ip of ["8.8.8.8", "1.1.1.1", "2606:4700:4700::1111"])
      expect(isPublicAddress(ip), ip).toBe(true);
    for (const ip of ["127.0.0.1", "10.1.2.3", "172.31.255.255", "192.168.0.1", "169.254.169.254", "0.0.0.0"])
      expect(isPublicAddress(ip), ip).toBe(false);
    for (const ip of ["::1", "::", "fc00::1", "fd12::1", "fe80::1", "::ffff:10.0.0.1", "not-an-ip"])
      expect(isPublicAddress(ip), ip).toBe(false);
    expect(isPublicAddress("172.32.0.1")).toBe(true);
  });

  it("sizes images through the proxy unless inline or already proxied", () => {
    expect(getSizedImageUrl("https://a/b.png", 500, "https://p")).toBe(
      "https://p?url=https%3A%2F%2Fa%2Fb.png&width=500",
    );
    expect(getSizedImageUrl("data:image/svg+xml,x", 500, "https://p")).toBe("data:image/svg+xml,x");
    expect(getSizedImageUrl("https://a/b.png", 500, undefined)).toBe("https://a/b.png");
  });
});
