import { type LookupAddress, lookup } from "node:dns";
import { lookup as dnsLookup } from "node:dns/promises";
import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import { BlockList, isIP, type LookupFunction } from "node:net";
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

/** Options of {@link createImageChecker}. */
export interface ImageCheckerOptions {
  /** Per-request timeout, milliseconds (default 30 000). */
  timeoutMs?: number;
  /**
   * Exact `host:port` authorities exempt from the private-address refusal. Empty by default; only tests
   * that serve images on 127.0.0.1 (or a localnet developer) opt in, never production.
   */
  allowedPrivateHosts?: readonly string[];
}

/** Redirect hops followed (each one checked like the first URL). */
const MAX_REDIRECTS = 3;

// Separate lists: a BlockList also matches IPv4 addresses against IPv4-mapped IPv6 subnets.
const BLOCKED_V4 = new BlockList();
const BLOCKED_V6 = new BlockList();
for (const [net, prefix] of [
  ["0.0.0.0", 8], // unspecified / "this network"
  ["10.0.0.0", 8],
  ["100.64.0.0", 10], // carrier-grade NAT (also some cloud metadata services)
  ["127.0.0.0", 8],
  ["169.254.0.0", 16], // link-local, cloud metadata 169.254.169.254
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["224.0.0.0", 4], // multicast
  ["240.0.0.0", 4], // reserved, broadcast
] as const)
  BLOCKED_V4.addSubnet(net, prefix, "ipv4");
for (const [net, prefix] of [
  ["::", 128], // unspecified
  ["::1", 128],
  ["::ffff:0:0", 96], // IPv4-mapped
  ["64:ff9b::", 96], // NAT64
  ["fc00::", 7], // unique local (incl. fd00:ec2::254 metadata)
  ["fe80::", 10], // link-local
  ["ff00::", 8], // multicast
] as const)
  BLOCKED_V6.addSubnet(net, prefix, "ipv6");

/** Whether `ip` (an IPv4 or IPv6 literal) is a public unicast address an image may be fetched from. */
export function isPublicAddress(ip: string): boolean {
  const family = isIP(ip);
  if (family === 4) return !BLOCKED_V4.check(ip, "ipv4");
  if (family === 6) return !BLOCKED_V6.check(ip, "ipv6");
  return false;
}

class RefusedHostError extends Error {}

const refusedHost = (host: string) =>
  new RefusedHostError(`The image URL's host ${host} is or resolves to a private, local or metadata address`);

/** dns.lookup that fails when any resolved address is not public (used at connect time: no rebinding). */
const guardedLookup: LookupFunction = (hostname, options, callback) => {
  lookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, "", 4);
    const list = addresses as LookupAddress[];
    if (list.length === 0 || list.some((a) => !isPublicAddress(a.address)))
      return callback(refusedHost(hostname), "", 4);
    if ((options as { all?: boolean }).all)
      return (callback as (e: null, a: LookupAddress[]) => void)(null, list);
    return callback(null, list[0]!.address, list[0]!.family);
  });
};

/** Refuses (throws RefusedHostError) a URL whose host is or resolves to a non-public address. */
async function requirePublicHost(url: URL): Promise<void> {
  const host = url.hostname.replace(/^\[|\]$/g, "");
  if (isIP(host) !== 0) {
    if (!isPublicAddress(host)) throw refusedHost(host);
    return;
  }
  let addresses: LookupAddress[];
  try {
    addresses = await dnsLookup(host, { all: true, verbatim: true });
  } catch {
    throw new RefusedHostError(`The image URL's host ${host} cannot be resolved`);
  }
  if (addresses.length === 0 || addresses.some((a) => !isPublicAddress(a.address))) throw refusedHost(host);
}

interface HeadAnswer {
  status: number;
  contentType: string | undefined;
  location: string | undefined;
}

function headOnce(url: URL, guarded: boolean, timeoutMs: number): Promise<HeadAnswer> {
  return new Promise((resolve, reject) => {
    const request = (url.protocol === "https:" ? httpsRequest : httpRequest)(
      url,
      {
        method: "HEAD",
        signal: AbortSignal.timeout(timeoutMs),
        ...(guarded ? { lookup: guardedLookup } : {}),
      },
      (response) => {
        response.resume();
        const location = response.headers.location;
        resolve({
          status: response.statusCode ?? 0,
          contentType: response.headers["content-type"],
          location: typeof location === "string" ? location : undefined,
        });
      },
    );
    request.on("error", reject);
    request.end();
  });
}

/**
 * Spec rule: accepted if empty; rejected if it contains 'twimg'; otherwise a HEAD request must return an
 * image content type, with a retry through the image proxy at width 500. Inline SVG data URIs (the demo
 * world's images) are accepted as they are. `proxyUrl` undefined skips the retry.
 *
 * Server-side request safety: only http(s); a URL whose host is or resolves (every address) to a loopback,
 * private, link-local, unspecified, multicast or metadata address is refused without any request, and so is
 * every redirect hop (followed by hand, at most 3); the connection itself resolves through the same check,
 * so DNS rebinding cannot slip past. The configured proxy (operator-trusted) is exempt for its own host.
 */
export function createImageChecker(
  proxyUrl: string | undefined,
  options: ImageCheckerOptions = {},
): ImageChecker {
  const timeoutMs = options.timeoutMs ?? 30_000;
  const allowed = new Set(options.allowedPrivateHosts ?? []);
  const proxyHost = proxyUrl === undefined ? undefined : new URL(proxyUrl).host;

  /** HEAD `start`, following redirects; true when the final answer is an image. Throws RefusedHostError. */
  async function isImage(start: string, trustedHost?: string): Promise<boolean> {
    let url = new URL(start);
    for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
      if (url.protocol !== "http:" && url.protocol !== "https:")
        throw new RefusedHostError("Only http(s) image URLs are accepted (also after a redirect)");
      const exempt = allowed.has(url.host) || url.host === trustedHost;
      if (!exempt) await requirePublicHost(url);
      let answer: HeadAnswer;
      try {
        answer = await headOnce(url, !exempt, timeoutMs);
      } catch (error) {
        if (error instanceof RefusedHostError) throw error;
        return false;
      }
      if (answer.status >= 300 && answer.status < 400 && answer.location !== undefined) {
        url = new URL(answer.location, url);
        continue;
      }
      return answer.status >= 200 && answer.status < 300 && isImageContentType(answer.contentType);
    }
    return false;
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
      try {
        // The user's host is checked first even when a proxy would fetch it: nothing is fetched for it.
        if (!allowed.has(parsed.host)) await requirePublicHost(parsed);
        if (await isImage(url)) return { accepted: true, url, via: "direct" };
        if (proxyUrl !== undefined) {
          const proxied = `${proxyUrl}?url=${encodeURIComponent(url)}&width=${IMAGE_PROXY_WIDTH}`;
          if (await isImage(proxied, proxyHost)) return { accepted: true, url: proxied, via: "proxy" };
        }
      } catch (error) {
        if (error instanceof RefusedHostError) return { accepted: false, url, reason: error.message };
        throw error;
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
