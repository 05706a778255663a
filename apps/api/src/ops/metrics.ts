import type { FastifyInstance } from "fastify";
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";

/** The API's Prometheus metrics: one registry per app (several apps can live in one test process). */
export interface ApiMetrics {
  registry: Registry;
  /** Sender outcomes: `confirmed` or `failed`, by transaction kind. */
  senderResults: Counter<"kind" | "result">;
  /** Oracle co-signatures given. */
  oracleSignatures: Counter;
  /** Indexer lag in slots, set on each scrape (null when no indexer follows a program). */
  setIndexerLag(read: () => Promise<number | null>): void;
}

/** Creates the registry with request latency per route, process metrics and the API's own counters. */
export function createApiMetrics(): ApiMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  let readLag: () => Promise<number | null> = async () => null;
  new Gauge({
    name: "cistern_indexer_lag_slots",
    help: "Confirmed chain slot minus the indexer's last applied slot (-1 when no indexer runs)",
    registers: [registry],
    async collect() {
      this.set((await readLag().catch(() => null)) ?? -1);
    },
  });
  return {
    registry,
    senderResults: new Counter({
      name: "cistern_sender_transactions_total",
      help: "Transactions the sender submitted, by kind and result (confirmed, failed)",
      labelNames: ["kind", "result"] as const,
      registers: [registry],
    }),
    oracleSignatures: new Counter({
      name: "cistern_oracle_signatures_total",
      help: "Messages the oracle co-signed",
      registers: [registry],
    }),
    setIndexerLag(read) {
      readLag = read;
    },
  };
}

/** Records every request's latency by route and status, and serves `GET /metrics` (Prometheus text). */
export function registerMetricsRoutes(app: FastifyInstance, metrics: ApiMetrics): void {
  const latency = new Histogram({
    name: "cistern_http_request_duration_seconds",
    help: "HTTP request latency by method, route and status code",
    labelNames: ["method", "route", "status"] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10],
    registers: [metrics.registry],
  });
  app.addHook("onResponse", async (request, reply) => {
    const route = request.routeOptions.url ?? "unknown";
    if (route === "/metrics") return;
    latency.observe(
      { method: request.method, route, status: String(reply.statusCode) },
      reply.elapsedTime / 1000,
    );
  });
  app.get("/metrics", { schema: { hide: true } }, async (_request, reply) => {
    reply.type(metrics.registry.contentType);
    return metrics.registry.metrics();
  });
}
