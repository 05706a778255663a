import { CisternError, createHttpError, ERROR_CODES, HTTP_TIMEOUT_MS } from "@cistern/protocol";

export interface RequestOptions {
  method?: "GET" | "POST";
  body?: unknown;
  timeoutMs?: number;
  fetchImpl?: typeof fetch;
  signal?: AbortSignal;
  /** Extra request headers (the chat's Authorization). */
  headers?: Record<string, string>;
}

/**
 * JSON request with a 30 s timeout. 400, 404 and 422 become a CisternError carrying the server's
 * message; other failures HTTP_UNEXPECTED_STATUS; a timeout HTTP_TIMEOUT.
 */
export async function requestJson<T>(url: string, options: RequestOptions = {}): Promise<T> {
  const { method = options.body === undefined ? "GET" : "POST", timeoutMs = HTTP_TIMEOUT_MS } = options;
  const fetchImpl = options.fetchImpl ?? globalThis.fetch;
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, timeoutMs);
  const onAbort = () => controller.abort();
  options.signal?.addEventListener("abort", onAbort);
  let response: Response;
  try {
    response = await fetchImpl(url, {
      method,
      headers: {
        ...(options.body === undefined
          ? { accept: "application/json" }
          : { "content-type": "application/json" }),
        ...options.headers,
      },
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      signal: controller.signal,
    });
  } catch (error) {
    if (timedOut)
      throw new CisternError(ERROR_CODES.HTTP_TIMEOUT, { seconds: timeoutMs / 1000 }, { cause: error });
    throw error;
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener("abort", onAbort);
  }
  const text = await response.text();
  let body: unknown = text;
  try {
    body = text === "" ? null : JSON.parse(text);
  } catch {
    // Not JSON: keep the text.
  }
  if (response.ok) return body as T;
  throw createHttpError(response.status, body);
}
