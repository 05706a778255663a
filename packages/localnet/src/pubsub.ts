import type { Server } from "node:http";
import { type WebSocket, WebSocketServer } from "ws";
import {
  type AccountConfig,
  encodeAccount,
  parseAccountConfig,
  RENT_EPOCH_SENTINEL,
} from "./account-encoding.ts";
import { decodeAddress, decodeBase58, encodeBase58 } from "./base58.ts";
import {
  type Chain,
  type ChainEvent,
  type ChainListener,
  type Commitment,
  ROOT_DISTANCE_SLOTS,
} from "./chain.ts";
import { invalidParams, isLocalnetRpcError, LocalnetRpcError, RPC_ERROR } from "./errors.ts";
import type { TxRecord } from "./history.ts";
import { type AccountFilter, compileFilters } from "./rpc/account-methods.ts";
import { serialize } from "./rpc/dispatch.ts";

type Sub =
  | { kind: "signature"; ws: WebSocket; signature: string; commitment: Commitment }
  | { kind: "account"; ws: WebSocket; address: string; cfg: AccountConfig }
  | { kind: "program"; ws: WebSocket; program: string; cfg: AccountConfig; filters: AccountFilter[] }
  | { kind: "slot"; ws: WebSocket }
  | { kind: "root"; ws: WebSocket }
  | { kind: "logs"; ws: WebSocket; mentions: string | null };

const COMMITMENT_RANK: Record<Commitment, number> = { processed: 0, confirmed: 1, finalized: 2 };

const UNSUBSCRIBE: Record<string, Sub["kind"]> = {
  signatureUnsubscribe: "signature",
  accountUnsubscribe: "account",
  programUnsubscribe: "program",
  slotUnsubscribe: "slot",
  rootUnsubscribe: "root",
  logsUnsubscribe: "logs",
};

/** Solana PubSub over websockets, fed by committed chain events. */
export class PubSub implements ChainListener {
  private subs = new Map<number, Sub>();
  private nextId = 1;
  private servers: WebSocketServer[] = [];

  constructor(private readonly chain: Chain) {
    chain.addListener(this);
  }

  /** Serves PubSub on an existing HTTP server (upgrade requests). */
  attach(server: Server): void {
    const wss = new WebSocketServer({ server });
    // ws re-emits the HTTP server's errors (e.g. EADDRINUSE); the HTTP side reports them.
    wss.on("error", () => undefined);
    wss.on("connection", (ws) => this.onConnection(ws));
    this.servers.push(wss);
  }

  /** Serves PubSub on its own port; resolves with the bound port. */
  listen(host: string, port: number): Promise<number> {
    return new Promise((resolve, reject) => {
      const wss = new WebSocketServer({ host, port });
      wss.once("error", (e) => {
        wss.close();
        reject(e);
      });
      wss.once("listening", () => {
        wss.removeAllListeners("error");
        wss.on("error", (e) => console.error(`localnet: websocket server error: ${e}`));
        this.servers.push(wss);
        const addr = wss.address();
        resolve(typeof addr === "object" && addr ? addr.port : port);
      });
      wss.on("connection", (ws) => this.onConnection(ws));
    });
  }

  private onConnection(ws: WebSocket): void {
    ws.on("message", (raw) => this.onMessage(ws, raw.toString()));
    ws.on("close", () => {
      for (const [id, s] of this.subs) if (s.ws === ws) this.subs.delete(id);
    });
    ws.on("error", () => ws.terminate());
  }

  private onMessage(ws: WebSocket, text: string): void {
    let m: { id?: unknown; method?: unknown; params?: unknown };
    try {
      m = JSON.parse(text);
    } catch {
      send(ws, { jsonrpc: "2.0", id: null, error: { code: RPC_ERROR.PARSE_ERROR, message: "Parse error" } });
      return;
    }
    if (!m || typeof m !== "object") {
      send(ws, invalidRequest(null));
      return;
    }
    // rpc-websockets sends `ping` notifications without an id: nothing to answer.
    if (m.id === undefined || m.id === null) return;
    const id = m.id as string | number;
    if (typeof m.method !== "string") {
      send(ws, invalidRequest(id));
      return;
    }
    try {
      const result = this.call(
        ws,
        m.method,
        Array.isArray(m.params) ? m.params : m.params === undefined ? [] : null,
      );
      send(ws, { jsonrpc: "2.0", id, result });
    } catch (e) {
      const err = isLocalnetRpcError(e)
        ? { code: e.code, message: e.message }
        : { code: RPC_ERROR.INTERNAL_ERROR, message: String(e) };
      send(ws, { jsonrpc: "2.0", id, error: err });
    }
  }

  private add(sub: Sub): number {
    const id = this.nextId++;
    this.subs.set(id, sub);
    return id;
  }

  private call(ws: WebSocket, method: string, p: unknown[] | null): unknown {
    if (p === null) throw invalidParams("Invalid params: expected an array");
    const cfg = (p[1] ?? {}) as Record<string, unknown>;
    switch (method) {
      case "signatureSubscribe": {
        const signature = p[0];
        if (typeof signature !== "string" || decodeBase58(signature).length !== 64)
          throw invalidParams("Invalid param: Invalid signature");
        // agave's default is the node's: finalized
        const commitment = cfg.commitment ?? "finalized";
        if (typeof commitment !== "string" || !Object.hasOwn(COMMITMENT_RANK, commitment))
          throw invalidParams(`Invalid params: unknown variant \`${String(commitment)}\``);
        const id = this.add({ kind: "signature", ws, signature, commitment: commitment as Commitment });
        const landed = this.chain.history.get(signature);
        if (landed) setImmediate(() => this.notifySignature(landed));
        return id;
      }
      case "accountSubscribe": {
        const address = p[0] as string;
        decodeAddress(address);
        return this.add({ kind: "account", ws, address, cfg: parseAccountConfig(cfg, "base58") });
      }
      case "programSubscribe": {
        const program = p[0] as string;
        decodeAddress(program);
        return this.add({
          kind: "program",
          ws,
          program,
          cfg: parseAccountConfig(cfg, "base58"),
          filters: compileFilters(cfg.filters),
        });
      }
      case "slotSubscribe":
        return this.add({ kind: "slot", ws });
      case "rootSubscribe":
        return this.add({ kind: "root", ws });
      case "logsSubscribe": {
        const f = p[0] as unknown;
        let mentions: string | null = null;
        if (f === "all" || f === "allWithVotes") mentions = null;
        else if (f && typeof f === "object" && Array.isArray((f as { mentions?: unknown }).mentions)) {
          const list = (f as { mentions: unknown[] }).mentions;
          if (list.length !== 1 || typeof list[0] !== "string")
            throw invalidParams("Invalid Request: Only 1 address supported");
          decodeAddress(list[0]);
          mentions = list[0];
        } else
          throw invalidParams(
            'Invalid params: logs filter must be "all", "allWithVotes" or {mentions:[address]}',
          );
        return this.add({ kind: "logs", ws, mentions });
      }
      default: {
        const kind = UNSUBSCRIBE[method];
        if (!kind) throw new LocalnetRpcError(RPC_ERROR.METHOD_NOT_FOUND, "Method not found");
        const id = p[0];
        const s = typeof id === "number" ? this.subs.get(id) : undefined;
        if (!s || s.kind !== kind || s.ws !== ws) throw invalidParams("Invalid subscription id.");
        this.subs.delete(id as number);
        return true;
      }
    }
  }

  private notify(id: number, method: string, result: unknown): void {
    const s = this.subs.get(id);
    if (!s) return;
    send(s.ws, { jsonrpc: "2.0", method, params: { result, subscription: id } });
  }

  /** Tells the subscribers of `r`'s signature whose commitment it has reached. */
  private notifySignature(r: TxRecord): void {
    for (const [id, s] of this.subs)
      if (s.kind === "signature" && s.signature === r.signature) this.notifySignatureIfReached(id, s, r);
  }

  /** Notifies subscription `id` if `r` has reached its commitment, and ends it (one-shot, like agave). */
  private notifySignatureIfReached(id: number, s: { commitment: Commitment }, r: TxRecord): void {
    if (COMMITMENT_RANK[s.commitment] > COMMITMENT_RANK[this.chain.commitmentOf(r.slot).status]) return;
    this.notify(id, "signatureNotification", { context: { slot: r.slot }, value: { err: r.err } });
    this.subs.delete(id);
  }

  private accountValue(address: string, cfg: AccountConfig) {
    const acct = this.chain.svm.getAccount(decodeAddress(address));
    if (acct && cfg.encoding === "base58" && acct.data().length > 128)
      return encodeAccount(this.chain.svm, acct, { ...cfg, encoding: "base64" });
    if (!acct)
      return {
        data: ["", "base64"],
        executable: false,
        lamports: 0,
        owner: "11111111111111111111111111111111",
        rentEpoch: RENT_EPOCH_SENTINEL,
        space: 0,
      };
    return encodeAccount(this.chain.svm, acct, cfg);
  }

  /** Notifies signature, logs, account and program subscribers of a durable batch. */
  onCommitted(events: ChainEvent[], slot: number): void {
    if (this.subs.size === 0) return;
    const changed = new Set<string>();
    let hasAccountSubs = false;
    for (const s of this.subs.values())
      if (s.kind === "account" || s.kind === "program") hasAccountSubs = true;
    for (const e of events) {
      if (e.kind === "tx") {
        this.notifySignature(e.record);
        this.notifyLogs(e.record);
        if (hasAccountSubs)
          e.record.accountKeys.forEach((k, i) => {
            if (e.record.writable[i]) changed.add(k);
          });
      } else if (hasAccountSubs) for (const a of e.addresses) changed.add(a);
    }
    if (changed.size === 0) return;
    const context = { slot };
    for (const [id, s] of this.subs) {
      if (s.kind === "account" && changed.has(s.address))
        this.notify(id, "accountNotification", { context, value: this.accountValue(s.address, s.cfg) });
    }
    const programSubs = [...this.subs].filter(([, s]) => s.kind === "program");
    if (programSubs.length === 0) return;
    for (const address of changed) {
      const acct = this.chain.svm.getAccount(decodeAddress(address));
      if (!acct) continue;
      const owner = encodeBase58(acct.owner());
      const data = acct.data();
      for (const [id, s] of programSubs) {
        if (s.kind !== "program" || s.program !== owner || !s.filters.every((f) => f(data))) continue;
        const cfg =
          s.cfg.encoding === "base58" && data.length > 128
            ? { ...s.cfg, encoding: "base64" as const }
            : s.cfg;
        this.notify(id, "programNotification", {
          context,
          value: { pubkey: address, account: encodeAccount(this.chain.svm, acct, cfg) },
        });
      }
    }
  }

  private notifyLogs(r: TxRecord): void {
    for (const [id, s] of this.subs) {
      if (s.kind !== "logs" || (s.mentions !== null && !r.accountKeys.includes(s.mentions))) continue;
      this.notify(id, "logsNotification", {
        context: { slot: r.slot },
        value: { signature: r.signature, err: r.err, logs: r.logs },
      });
    }
  }

  /** Slot and root notifications; signature subscribers whose transaction the new slot confirmed or rooted. */
  onSlot(slot: number): void {
    const root = Math.max(0, slot - ROOT_DISTANCE_SLOTS);
    for (const [id, s] of this.subs) {
      if (s.kind === "slot") this.notify(id, "slotNotification", { parent: slot - 1, root, slot });
      else if (s.kind === "root") this.notify(id, "rootNotification", root);
      else if (s.kind === "signature") {
        const r = this.chain.history.get(s.signature);
        if (r !== undefined) this.notifySignatureIfReached(id, s, r);
      }
    }
  }

  /** Closes every websocket server and connection. */
  async close(): Promise<void> {
    this.chain.removeListener(this);
    this.subs.clear();
    await Promise.all(
      this.servers.map(
        (wss) =>
          new Promise<void>((resolve) => {
            for (const c of wss.clients) c.terminate();
            wss.close(() => resolve());
          }),
      ),
    );
  }
}

function invalidRequest(id: string | number | null) {
  return { jsonrpc: "2.0", id, error: { code: RPC_ERROR.INVALID_REQUEST, message: "Invalid request" } };
}

function send(ws: WebSocket, msg: unknown): void {
  if (ws.readyState === ws.OPEN) ws.send(serialize(msg));
}
