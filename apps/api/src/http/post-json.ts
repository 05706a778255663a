import { Agent as HttpAgent, request as httpRequest } from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";

/** Kept-alive connections to the Solana node (a build makes several JSON-RPC calls; each is one round trip). */
const httpAgent = new HttpAgent({ keepAlive: true, maxSockets: 64 });
const httpsAgent = new HttpsAgent({ keepAlive: true, maxSockets: 64 });

let posted = 0;

/** How many JSON POSTs this process made so far (benchmarks print the node's JSON-RPC calls per request). */
export function getPostJsonCount(): number {
  return posted;
}

/** What a JSON POST answered: the status and the parsed body (null when it was not JSON). */
export interface JsonAnswer {
  status: number;
  body: unknown;
}

/**
 * POSTs `body` (JSON text) to `url` over a kept-alive connection and parses the answer; rejects on a network
 * error or when no answer came within `timeoutMs` (an Error named "TimeoutError"). Node's http client: the
 * JSON-RPC path of every build, where `fetch` cost a millisecond of CPU a call.
 */
export function postJson(url: string, body: string, timeoutMs: number): Promise<JsonAnswer> {
  posted++;
  const target = new URL(url);
  const secure = target.protocol === "https:";
  return new Promise((resolve, reject) => {
    const req = (secure ? httpsRequest : httpRequest)(
      target,
      {
        method: "POST",
        agent: secure ? httpsAgent : httpAgent,
        headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("error", reject);
        res.on("end", () => {
          clearTimeout(timer);
          let parsed: unknown = null;
          try {
            parsed = JSON.parse(Buffer.concat(chunks).toString("utf8"));
          } catch {
            parsed = null;
          }
          resolve({ status: res.statusCode ?? 0, body: parsed });
        });
      },
    );
    const timer = setTimeout(() => {
      const error = new Error(`no answer from ${target.host} within ${timeoutMs} ms`);
      error.name = "TimeoutError";
      req.destroy(error);
    }, timeoutMs);
    req.on("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    req.end(body);
  });
}
