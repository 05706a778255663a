/** One analytics event POSTed to our API (no third party). */
export type AnalyticsEvent =
  | { type: "page_view"; path: string; referrer: string | null; at: number }
  | { type: "action"; name: string; properties: Record<string, string | number | boolean>; at: number };

export interface Analytics {
  pageView(path: string): void;
  action(name: string, properties?: Record<string, string | number | boolean>): void;
}

/**
 * Analytics that POST events as JSON to `url`. With no URL configured it records nothing.
 * Delivery failures are ignored: analytics must never affect the app.
 */
export function createAnalytics(url: string | null, fetchImpl: typeof fetch = globalThis.fetch): Analytics {
  function post(event: AnalyticsEvent): void {
    if (!url) return;
    try {
      fetchImpl(url, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(event),
        keepalive: true,
      }).catch(() => undefined);
    } catch {
      // Ignored on purpose.
    }
  }
  return {
    pageView(path) {
      post({ type: "page_view", path, referrer: document.referrer || null, at: Date.now() });
    },
    action(name, properties = {}) {
      post({ type: "action", name, properties, at: Date.now() });
    },
  };
}
