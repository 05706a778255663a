// The load generators' HTTP/1.1 keep-alive client. It reads every answer into one buffer per connection (net's
// `onread`) and keeps only the status and, for a failure, the answer's first 200 bytes. Node's http client
// allocates a fresh read buffer per chunk: at 500 answers of 92 KiB a second, that brought a full collection in the
// generator every ~300 ms, 3-7 ms long, which the figures then counted as the server's latency.
import { connect, type Socket } from "node:net";

export interface LoadAnswer {
  status: number;
  /** The answer's first 200 bytes when its status is not 200 ("" otherwise). */
  failure: string;
}

export interface LoadClient {
  /** GET `url`, or POST `body` (JSON) to it; a connection error answers status 0. */
  send(url: string, body?: string): Promise<LoadAnswer>;
  close(): void;
}

const READ_BUFFER_BYTES = 256 * 1024;
const HEADER_END = Buffer.from("\r\n\r\n");

interface Connection {
  socket: Socket;
  /** host:port */
  key: string;
  /** The answer being read: its header text so far, then the body bytes still to come. */
  header: string;
  bodyLeft: number;
  status: number;
  failure: string;
  done?: (answer: LoadAnswer) => void;
}

export function createLoadClient(maxConnections = 128): LoadClient {
  const idle = new Map<string, Connection[]>();
  const all = new Set<Connection>();
  const queue: (() => void)[] = [];

  function open(host: string, port: number, key: string): Connection {
    const c: Connection = {
      socket: undefined as never,
      key,
      header: "",
      bodyLeft: -1,
      status: 0,
      failure: "",
    };
    c.socket = connect({
      host,
      port,
      noDelay: true,
      onread: { buffer: Buffer.allocUnsafe(READ_BUFFER_BYTES), callback: (n, buf) => read(c, buf, n) },
    });
    const fail = () => {
      if (!all.delete(c)) return;
      const waiting = idle.get(key);
      if (waiting?.includes(c)) waiting.splice(waiting.indexOf(c), 1);
      c.done?.({ status: 0, failure: "connection closed" });
      c.done = undefined;
      queue.shift()?.();
    };
    c.socket.on("error", fail);
    c.socket.on("close", fail);
    all.add(c);
    return c;
  }

  function read(c: Connection, buf: Buffer, n: number): void {
    let at = 0;
    if (c.bodyLeft < 0) {
      const end = buf.subarray(0, n).indexOf(HEADER_END);
      c.header += buf.toString("latin1", 0, end < 0 ? n : end);
      if (end < 0) return;
      at = end + HEADER_END.length;
      c.status = Number(c.header.slice(9, 12));
      const length = /\r\ncontent-length: *(\d+)/i.exec(c.header);
      if (length === null) throw new Error(`load client: an answer without Content-Length: ${c.header}`);
      c.bodyLeft = Number(length[1]);
    }
    const body = Math.min(n - at, c.bodyLeft);
    if (c.status !== 200 && c.failure.length < 200)
      c.failure += buf.toString("utf8", at, at + Math.min(body, 200 - c.failure.length));
    c.bodyLeft -= body;
    if (c.bodyLeft > 0) return;
    const answer = { status: c.status, failure: c.failure };
    const done = c.done!;
    c.done = undefined;
    c.header = "";
    c.bodyLeft = -1;
    c.failure = "";
    (idle.get(c.key) ?? idle.set(c.key, []).get(c.key)!).push(c);
    done(answer);
    queue.shift()?.();
  }

  function send(url: string, body?: string): Promise<LoadAnswer> {
    const { hostname, port, pathname, search } = new URL(url);
    const key = `${hostname}:${port}`;
    const c =
      idle.get(key)?.pop() ?? (all.size < maxConnections ? open(hostname, Number(port), key) : undefined);
    if (c === undefined) return new Promise((r) => queue.push(() => void send(url, body).then(r)));
    return new Promise((resolve) => {
      c.done = resolve;
      c.socket.write(
        body === undefined
          ? `GET ${pathname}${search} HTTP/1.1\r\nHost: ${key}\r\n\r\n`
          : `POST ${pathname}${search} HTTP/1.1\r\nHost: ${key}\r\nContent-Type: application/json\r\n` +
              `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
      );
    });
  }

  return {
    send,
    close() {
      for (const c of all) c.socket.destroy();
    },
  };
}
