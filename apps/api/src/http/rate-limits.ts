import rateLimit from "@fastify/rate-limit";
import type { FastifyInstance, RouteOptions } from "fastify";
import { ApiError, ERROR_CODES } from "../errors/api-error.ts";

/** Routes a client can make the API work hard for: every POST (builds, sends, quotes, writes) and the chat. */
export function isRateLimitedRoute(route: Pick<RouteOptions, "method" | "url">): boolean {
  const methods = Array.isArray(route.method) ? route.method : [route.method];
  return methods.includes("POST") || route.url.startsWith("/graphql");
}

/**
 * Limits each client (by IP) to `perMinute` requests a minute on each rate-limited route, counted in this
 * process's memory (N API processes allow N times as much). Above it: 429 RATE_LIMITED with Retry-After.
 * Must run before the routes are declared.
 */
export async function registerRateLimits(app: FastifyInstance, perMinute: number): Promise<void> {
  if (perMinute <= 0) return;
  app.addHook("onRoute", (route) => {
    if (!isRateLimitedRoute(route)) return;
    route.config = {
      ...(route.config as object),
      rateLimit: { max: perMinute, timeWindow: 60_000 },
    } as never;
  });
  await app.register(rateLimit, {
    global: false,
    errorResponseBuilder: (_request, context) =>
      new ApiError(
        ERROR_CODES.RATE_LIMITED,
        `Too many requests: at most ${context.max} a minute to this route; try again in ${Math.ceil(context.ttl / 1000)} s`,
        { params: { retryAfterSeconds: String(Math.ceil(context.ttl / 1000)) } },
      ),
  });
}
