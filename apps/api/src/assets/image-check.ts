import { CURRENCY_IMAGE_SIZE_PX, checkImageUrl, isImageContentType } from "@cistern/protocol";

/** Width the image proxy is asked for when an image URL fails its direct check. */
export const IMAGE_PROXY_WIDTH = CURRENCY_IMAGE_SIZE_PX;

export type ImageCheckResult =
  | { accepted: true; url: string; via: "empty" | "direct" | "proxy" | "inline" }
  | { accepted: false; url: string; reason: string };

/** Checks image URLs the way the spec's validation rule says (section 5). */
export interface ImageChecker {
  check(url: string): Promise<ImageCheckResult>;
}

function isImageResponse(response: Response): boolean {
  return response.ok && isImageContentType(response.headers.get("content-type"));
}

/**
 * Spec rule: accepted if empty; rejected if it contains 'twimg'; otherwise a HEAD request must return an
 * image content type, with a retry through the image proxy at width 500. Inline SVG data URIs (the demo
 * world's images) are accepted as they are. `proxyUrl` undefined skips the retry.
 */
export function createImageChecker(proxyUrl: string | undefined, timeoutMs = 30_000): ImageChecker {
  async function head(url: string): Promise<boolean> {
    try {
      return isImageResponse(await fetch(url, { method: "HEAD", signal: AbortSignal.timeout(timeoutMs) }));
    } catch {
      return false;
    }
  }
  return {
    async check(url) {
      const rule = checkImageUrl(url);
      if (!rule.ok) return { accepted: false, url, reason: rule.error.message };
      if (!rule.needsContentTypeCheck) return { accepted: true, url: "", via: "empty" };
      if (url.startsWith("data:image/")) return { accepted: true, url, via: "inline" };
      let parsed: URL;
      try {
        parsed = new URL(url);
      } catch {
        return { accepted: false, url, reason: "Not a URL" };
      }
      if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
        return { accepted: false, url, reason: "Only http(s) image URLs are accepted" };
      }
      if (await head(url)) return { accepted: true, url, via: "direct" };
      if (proxyUrl !== undefined) {
        const proxied = `${proxyUrl}?url=${encodeURIComponent(url)}&width=${IMAGE_PROXY_WIDTH}`;
        if (await head(proxied)) return { accepted: true, url: proxied, via: "proxy" };
      }
      return { accepted: false, url, reason: "The URL does not answer with an image content type" };
    },
  };
}

/**
 * The image helper rule: an image is served resized through the image proxy at `width` unless it is
 * already on the proxy, inline (data: URI) or empty. Without a configured proxy the URL is unchanged.
 */
export function getSizedImageUrl(url: string, width: number, proxyUrl: string | undefined): string {
  if (proxyUrl === undefined || url === "" || url.startsWith("data:") || url.startsWith(proxyUrl)) return url;
  return `${proxyUrl}?url=${encodeURIComponent(url)}&width=${width}`;
}
