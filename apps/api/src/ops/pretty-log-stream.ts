import { Writable } from "node:stream";

const LEVEL_NAMES: Record<number, string> = {
  10: "trace",
  20: "debug",
  30: "info",
  40: "warn",
  50: "error",
  60: "fatal",
};

/** One pino JSON line as a short readable line: `12:00:01 warn  message (key=value ...)`. */
export function formatLogLine(line: string): string {
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return line;
  }
  const { level, time, msg, err, pid: _pid, hostname: _host, reqId: _reqId, ...rest } = entry;
  const at = typeof time === "number" ? new Date(time).toISOString().slice(11, 19) : "--:--:--";
  const name = (LEVEL_NAMES[Number(level)] ?? String(level)).padEnd(5);
  const details = Object.entries(rest)
    .map(([k, v]) => `${k}=${typeof v === "object" ? JSON.stringify(v) : String(v)}`)
    .join(" ");
  const error =
    err && typeof err === "object" ? ` — ${String((err as { message?: unknown }).message ?? "")}` : "";
  return `${at} ${name} ${String(msg ?? "")}${error}${details ? ` (${details})` : ""}`;
}

/** A stream for the Fastify logger that prints readable lines to stdout (LOG_FORMAT=pretty, `npm start`). */
export function createPrettyLogStream(out: NodeJS.WritableStream = process.stdout): Writable {
  let pending = "";
  return new Writable({
    write(chunk: Buffer, _encoding, done) {
      pending += chunk.toString("utf8");
      const lines = pending.split("\n");
      pending = lines.pop() ?? "";
      for (const line of lines) if (line.trim() !== "") out.write(`${formatLogLine(line)}\n`);
      done();
    },
  });
}
