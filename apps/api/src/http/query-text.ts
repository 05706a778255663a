import type { FastifyInstance } from "fastify";
import { ApiError, ERROR_CODES } from "../errors/api-error.ts";

/** C0 controls (NUL .. US), DEL and the C1 controls: never part of an address, amount, name or search. */
function isControl(code: number): boolean {
  return code <= 0x1f || (code >= 0x7f && code <= 0x9f);
}

/** The same without TAB, LF and CR, which a GraphQL document sent with GET may hold. */
function isControlButLineBreak(code: number): boolean {
  return isControl(code) && code !== 0x09 && code !== 0x0a && code !== 0x0d;
}

type ControlTest = (code: number) => boolean;

function holdsControl(text: string, test: ControlTest): boolean {
  for (let i = 0; i < text.length; i++) if (test(text.charCodeAt(i))) return true;
  return false;
}

/** Routes whose query values are documents in which line breaks are legitimate. */
const DOCUMENT_ROUTES: ReadonlySet<string> = new Set(["/graphql"]);

/** A key as a message shows it: control characters written as \u escapes (never raw bytes in an answer). */
function printable(key: string): string {
  return [...key]
    .map((c) => (isControl(c.charCodeAt(0)) ? `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}` : c))
    .join("");
}

/**
 * The first query key whose name or value holds a control character, or undefined. A value may be a string or,
 * for a repeated key, an array of strings.
 */
export function findControlCharacterKey(
  query: Record<string, unknown>,
  test: ControlTest = isControl,
): string | undefined {
  for (const [key, value] of Object.entries(query)) {
    if (holdsControl(key, test)) return key;
    const values = Array.isArray(value) ? value : [value];
    if (values.some((v) => typeof v === "string" && holdsControl(v, test))) return key;
  }
  return undefined;
}

/**
 * Refuses, for every route, a query string whose keys or values hold a control character (a NUL byte reached
 * PostgreSQL, which refuses it, and answered 500): 400 naming the key. Runs before validation and the handler,
 * so no route has to think of it.
 */
export function registerQueryTextGuard(app: FastifyInstance): void {
  app.addHook("onRequest", async (request) => {
    const query = request.query;
    if (query === null || typeof query !== "object") return;
    const test = DOCUMENT_ROUTES.has(request.routeOptions.url ?? "") ? isControlButLineBreak : isControl;
    const key = findControlCharacterKey(query as Record<string, unknown>, test);
    if (key === undefined) return;
    throw new ApiError(
      ERROR_CODES.INVALID_INPUT,
      `querystring.${printable(key)} must not contain control characters`,
      { params: { field: `querystring.${printable(key)}` } },
    );
  });
}
