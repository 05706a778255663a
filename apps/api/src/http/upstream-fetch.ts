import { ApiError, ERROR_CODES } from "../errors/api-error.ts";

/** How an outside service is asked: the spec's 30 s timeout, then retries with exponential backoff. */
export interface UpstreamOptions {
  /** Names the service and call in errors ("DAS getAsset", "Price API"). */
  what: string;
  timeoutMs?: number;
  /** Retries after the first attempt. */
  retries?: number;
  /** First backoff; doubled each retry (a Retry-After the service sends, up to 10 s, is waited instead). */
  backoffMs?: number;
}

/**
 * `fetch` for an outside service: a timeout, a network error, a 429 or a 5xx is retried with exponential
 * backoff up to `retries` times; after that the API's UPSTREAM_FAILED (which routes turn into a degraded
 * answer). Any other answer (2xx, or a 4xx the caller reads) is returned.
 */
export async function fetchUpstream(
  url: string | URL,
  init: RequestInit,
  options: UpstreamOptions,
): Promise<Response> {
  const retries = options.retries ?? 3;
  const backoffMs = options.backoffMs ?? 250;
  let lastError = "";
  let waitMs = 0;
  for (let attempt = 0; attempt <= retries; attempt++) {
    if (attempt > 0) await new Promise((r) => setTimeout(r, waitMs || backoffMs * 2 ** (attempt - 1)));
    waitMs = 0;
    let response: Response;
    try {
      response = await fetch(url, { ...init, signal: AbortSignal.timeout(options.timeoutMs ?? 30_000) });
    } catch (error) {
      lastError = error instanceof Error && error.name === "TimeoutError" ? "timed out" : "unreachable";
      continue;
    }
    if (response.status === 429 || response.status >= 500) {
      lastError = `answered ${response.status}`;
      const after = Number(response.headers.get("retry-after"));
      if (Number.isFinite(after) && after > 0) waitMs = Math.min(after, 10) * 1000;
      await response.body?.cancel().catch(() => undefined);
      continue;
    }
    return response;
  }
  throw new ApiError(
    ERROR_CODES.UPSTREAM_FAILED,
    `${options.what} ${lastError} after ${retries + 1} attempts`,
  );
}
