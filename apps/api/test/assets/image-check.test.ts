import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createImageChecker, getSizedImageUrl } from "../../src/assets/image-check.ts";
import { startHttpServer } from "../helpers/http-server.ts";

describe("image URL check", () => {
  let server: Awaited<ReturnType<typeof startHttpServer>>;
  beforeAll(async () => {
    server = await startHttpServer((req, res) => {
      const url = new URL(req.url!, "http://x");
      if (url.pathname === "/img.png") res.setHeader("content-type", "image/png");
      else if (url.pathname === "/proxy" && url.searchParams.get("width") === "500") {
        res.setHeader("content-type", "image/webp");
      } else res.setHeader("content-type", "text/html");
      res.end();
    });
  });
  afterAll(async () => server?.close());

  it("accepts empty, rejects twimg, accepts a direct image and retries through the proxy at width 500", async () => {
    const checker = createImageChecker(`${server.url}/proxy`);
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
    const checker = createImageChecker(undefined);
    expect(await checker.check(`${server.url}/page.html`)).toMatchObject({ accepted: false });
    expect(await checker.check("not a url")).toMatchObject({ accepted: false });
    expect(await checker.check("data:image/svg+xml,<svg/>")).toMatchObject({ accepted: true, via: "inline" });
  });

  it("sizes images through the proxy unless inline or already proxied", () => {
    expect(getSizedImageUrl("https://a/b.png", 500, "https://p")).toBe(
      "https://p?url=https%3A%2F%2Fa%2Fb.png&width=500",
    );
    expect(getSizedImageUrl("data:image/svg+xml,x", 500, "https://p")).toBe("data:image/svg+xml,x");
    expect(getSizedImageUrl("https://a/b.png", 500, undefined)).toBe("https://a/b.png");
  });
});
