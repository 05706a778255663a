import {
  closeSync,
  fdatasync,
  fsyncSync,
  openSync,
  readFileSync,
  readSync,
  renameSync,
  truncateSync,
  write,
  writeSync,
} from "node:fs";

/** Lines that start a write + fsync without waiting for the end of the event-loop turn. */
const EARLY_FLUSH_LINES = 16;

/**
 * Append-only JSON-lines log with group commit: lines appended while a write is in flight (or
 * during one event-loop turn) are written and fdatasync'ed together; callbacks run only once their
 * batch is durable. One write + fsync is in flight at a time, so lines reach the disk in order.
 */
export class AppendLog {
  private fd: number;
  private pending: string[] = [];
  private pendingCallbacks: ((err: Error | null) => void)[] = [];
  private scheduled = false;
  private flushing = false;
  private idleWaiters: (() => void)[] = [];

  constructor(readonly path: string) {
    this.fd = openSync(path, "a");
  }

  /** Queues a line (without newline); `done` runs after it is on disk. */
  append(line: string, done: (err: Error | null) => void): void {
    this.pending.push(line);
    this.pendingCallbacks.push(done);
    // A full group starts its write + fsync at once, so the disk works while later requests of the
    // same event-loop turn are still being executed.
    if (!this.flushing && this.pending.length >= EARLY_FLUSH_LINES) this.flush();
    else this.schedule();
  }

  /** Resolves once every queued line is durable. */
  flushed(): Promise<void> {
    if (!this.flushing && this.pending.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private schedule(): void {
    if (this.scheduled || this.flushing) return;
    this.scheduled = true;
    setImmediate(() => this.flush());
  }

  private flush(): void {
    this.scheduled = false;
    if (this.flushing) return;
    if (this.pending.length === 0) {
      this.settleIdle();
      return;
    }
    this.flushing = true;
    const buffer = Buffer.from(`${this.pending.join("\n")}\n`);
    const callbacks = this.pendingCallbacks;
    this.pending = [];
    this.pendingCallbacks = [];
    const finish = (err: Error | null) => {
      this.flushing = false;
      for (const cb of callbacks) cb(err);
      if (this.pending.length > 0) this.schedule();
      else this.settleIdle();
    };
    const writeFrom = (offset: number) => {
      write(this.fd, buffer, offset, buffer.length - offset, null, (err, written) => {
        if (err) return finish(err);
        if (offset + written < buffer.length) return writeFrom(offset + written);
        fdatasync(this.fd, (syncErr) => finish(syncErr));
      });
    };
    writeFrom(0);
  }

  private settleIdle(): void {
    if (this.flushing || this.pending.length > 0) return;
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const w of waiters) w();
  }

  /**
   * Replaces the file with `select(lines now in it)` (temp file, fsync, rename); lines queued but not yet
   * written go to the new file afterwards.
   */
  async rewrite(select: (lines: string[]) => string[]): Promise<void> {
    while (this.flushing) await this.flushed();
    // From here to the end nothing yields, so no write can start in between.
    const lines = select(readRawLines(this.path));
    const tmp = `${this.path}.tmp`;
    const fd = openSync(tmp, "w");
    try {
      writeSync(fd, lines.length > 0 ? `${lines.join("\n")}\n` : "");
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, this.path);
    closeSync(this.fd);
    this.fd = openSync(this.path, "a");
  }

  /** Closes the file after pending writes are durable. */
  async close(): Promise<void> {
    await this.flushed();
    closeSync(this.fd);
  }
}

/** The complete lines of a log file as written (every line ends with a newline once durable). */
function readRawLines(path: string): string[] {
  const text = readFileSync(path, "utf8");
  const end = text.lastIndexOf("\n");
  return end < 0
    ? []
    : text
        .slice(0, end)
        .split("\n")
        .filter((l) => l.length > 0);
}

/**
 * Reads every complete JSON line of a log, streaming in chunks (no size limit); a torn final line
 * (crash mid-write) is cut off so that later appends start on a clean line.
 */
export function readLogLines<T>(path: string): T[] {
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch {
    return [];
  }
  const out: T[] = [];
  const chunk = Buffer.alloc(1 << 20);
  let carry: Buffer = Buffer.alloc(0);
  let goodBytes = 0;
  let torn = false;
  try {
    for (;;) {
      const n = readSync(fd, chunk, 0, chunk.length, null);
      if (n === 0) break;
      let buf = carry.length > 0 ? Buffer.concat([carry, chunk.subarray(0, n)]) : chunk.subarray(0, n);
      let start = 0;
      for (;;) {
        const nl = buf.indexOf(10, start);
        if (nl === -1) break;
        const line = buf.toString("utf8", start, nl);
        if (line.length > 0) {
          try {
            out.push(JSON.parse(line) as T);
          } catch {
            torn = true;
            break;
          }
        }
        goodBytes += nl + 1 - start;
        start = nl + 1;
      }
      if (torn) break;
      buf = buf.subarray(start);
      carry = Buffer.from(buf);
    }
  } finally {
    closeSync(fd);
  }
  if (torn || carry.length > 0) truncateSync(path, goodBytes);
  return out;
}
