import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type LocalnetHandle, type StartLocalnetOptions, startLocalnet } from "../src/index.ts";

/** A fresh temp data dir under os.tmpdir(). */
export function tempDataDir(): string {
  return mkdtempSync(join(tmpdir(), "cistern-localnet-test-"));
}

/** Starts a localnet on random ports with a temp data dir (seeded unless told otherwise). */
export async function startTestLocalnet(
  opts: Partial<StartLocalnetOptions> = {},
): Promise<LocalnetHandle & { cleanup(): Promise<void> }> {
  const dataDir = opts.dataDir ?? tempDataDir();
  const net = await startLocalnet({ rpcPort: 0, slotMs: 100, ...opts, dataDir });
  return {
    ...net,
    cleanup: async () => {
      await net.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Raw JSON-RPC call; returns the parsed response body. */
export async function rpc(
  url: string,
  method: string,
  params: unknown[] = [],
): Promise<{ result?: unknown; error?: { code: number; message: string; data?: unknown } }> {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  return (await res.json()) as {
    result?: unknown;
    error?: { code: number; message: string; data?: unknown };
  };
}

/** POSTs a raw body; returns status and parsed JSON (or null). */
export async function rawPost(url: string, body: string): Promise<{ status: number; json: unknown }> {
  const res = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : null };
}

/** Closes a web3.js Connection's websocket so it stops reconnecting once the server is gone. */
export function closeConnection(connection: unknown): void {
  const ws = (connection as { _rpcWebSocket?: { close(): void } })._rpcWebSocket;
  try {
    ws?.close();
  } catch {
    // already closed
  }
}

/** A DAS call with named params, as DAS clients send them; a JSON-RPC error throws with its code. */
export async function das<T>(url: string, method: string, params: Record<string, unknown>): Promise<T> {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  const body = (await res.json()) as { result?: T; error?: { code: number; message: string } };
  if (body.error) throw Object.assign(new Error(body.error.message), { code: body.error.code });
  return body.result as T;
}
