// One verdict per benchmark run: a benchmark whose requests fail fails, loudly, whatever the latency. Any non-2xx
// answer, any error counted, any loan not confirmed, any target not met is a MISSED line, and the process exits
// non-zero (bench/run.ts then exits non-zero too).

export interface Verdict {
  /** Records `label` as met when `ok`, else as MISSED with `why`; answers `ok`. */
  check(ok: boolean, label: string, why: string): boolean;
  /** Prints the verdict and sets the process's exit code: 1 when anything was MISSED. */
  finish(): boolean;
}

export function createVerdict(bench: string): Verdict {
  const missed: string[] = [];
  return {
    check(ok, label, why) {
      if (!ok) missed.push(`${label}: ${why}`);
      return ok;
    },
    finish() {
      if (missed.length === 0) {
        console.log(`${bench}: verdict met`);
        return true;
      }
      for (const m of missed) console.log(`${bench}: MISSED ${m}`);
      console.log(`${bench}: verdict MISSED (${missed.length})`);
      process.exitCode = 1;
      return false;
    },
  };
}

/** True for a 2xx status. */
export const isSuccess = (status: number) => status >= 200 && status < 300;

/**
 * Sends one request of a job before it is measured and throws (the benchmark then exits non-zero) unless it is
 * answered 2xx: a benchmark measures the request succeeding, never its refusal.
 */
export async function assertOneSuccess(label: string, url: string, body?: string): Promise<void> {
  const answer = await fetch(url, {
    method: body === undefined ? "GET" : "POST",
    ...(body === undefined ? {} : { body, headers: { "content-type": "application/json" } }),
  });
  const text = await answer.text();
  if (!isSuccess(answer.status))
    throw new Error(
      `MISSED ${label}: the world does not make it succeed (answered ${answer.status} ${text.slice(0, 300)}); nothing measured`,
    );
}
