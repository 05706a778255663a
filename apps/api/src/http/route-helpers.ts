import type { FastifyInstance, FastifyReply, FastifyRequest, RouteShorthandOptions } from "fastify";

/** Declares a GET route with its schema (querystring + responses) and a typed handler. */
export function getRoute<Q, R>(
  app: FastifyInstance,
  path: string,
  schema: NonNullable<RouteShorthandOptions["schema"]>,
  handler: (query: Q, request: FastifyRequest, reply: FastifyReply) => Promise<R>,
): void {
  app.get(path, { schema }, async (request, reply) => handler(request.query as Q, request, reply));
}
