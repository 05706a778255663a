import type { FastifyInstance } from "fastify";
import { ApiError, ERROR_CODES } from "../errors/api-error.ts";

type QuerySchema = { properties?: Record<string, { type?: unknown; anyOf?: { type?: unknown }[] }> };

function isNumeric(schema: { type?: unknown; anyOf?: { type?: unknown }[] }): boolean {
  const types = [schema.type, ...(schema.anyOf ?? []).map((s) => s.type)].flat();
  return types.includes("integer") || types.includes("number");
}

/**
 * Refuses query numbers that coerce to a non-finite value ("Infinity", "1e309"): Ajv's coercion turns them
 * into Infinity, which passes its integer and maximum checks, and a later query would fail with a 5xx.
 * Every numeric query parameter of every route is covered, whatever its schema says.
 */
export function registerFiniteQueryNumbers(app: FastifyInstance): void {
  app.addHook("preValidation", async (request) => {
    const schema = request.routeOptions.schema?.querystring as QuerySchema | undefined;
    const properties = schema?.properties;
    if (properties === undefined || request.query === null || typeof request.query !== "object") return;
    const query = request.query as Record<string, unknown>;
    for (const [name, property] of Object.entries(properties)) {
      const raw = query[name];
      if (typeof raw !== "string" || !isNumeric(property)) continue;
      if (!Number.isFinite(Number(raw))) {
        throw new ApiError(ERROR_CODES.INVALID_INPUT, `querystring.${name} must be a finite number`);
      }
    }
  });
}
