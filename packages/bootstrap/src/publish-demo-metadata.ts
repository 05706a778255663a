import { existsSync, readFileSync } from "node:fs";
import { basename, join } from "node:path";
import {
  DEMO_COLLECTIONS,
  DEMO_COMPRESSED_COLLECTIONS,
  DEMO_CORE_COLLECTIONS,
  DEMO_TOKENS,
} from "@cistern/localnet";
import { type Address, createKeyPairSignerFromBytes, getBase58Decoder, signBytes } from "@solana/kit";
import { BOOTSTRAP_ERROR, BootstrapError } from "./bootstrap-error.ts";
import { DEMO_LENDERS } from "./demo-plan.ts";
import { getKeysDir } from "./key-files.ts";
import type { DemoLender, DemoSeedResult } from "./seed-demo.ts";

/** Default time the API gets to index every demo pool before publishing gives up. */
export const DEFAULT_METADATA_INDEX_TIMEOUT_MS = 60_000;
const POLL_MS = 250;
const REQUEST_TIMEOUT_MS = 30_000;

/** Options of {@link publishDemoPoolMetadata}. */
export interface PublishDemoPoolMetadataOptions {
  /** Base URL of a running Cistern API (e.g. http://127.0.0.1:3001). */
  apiUrl: string;
  /** The bootstrap data dir: lender keys are read from `<dataDir>/keys/demo-lenders/`. */
  dataDir: string;
  /** The demo seeding result (`bootstrapCluster(...).demo`). */
  demo: DemoSeedResult;
  /** How long to wait for the API to index every demo pool (default {@link DEFAULT_METADATA_INDEX_TIMEOUT_MS}). */
  indexTimeoutMs?: number;
}

/** One demo pool's metadata after publishing. */
export interface PublishedPoolMetadata {
  pool: Address;
  owner: Address;
  name: string;
  /** The thumbnail sent (the pool's first collateral image from the demo world; "" when none is known). */
  thumbnail: string;
  /** "updated" when this run posted it, "unchanged" when the API already held it. */
  action: "updated" | "unchanged";
}

/** What {@link publishDemoPoolMetadata} did. */
export interface PublishDemoPoolMetadataResult {
  pools: PublishedPoolMetadata[];
  /** Number of POST /pool/update calls made (0 on a second run). */
  posted: number;
}

interface MetadataRow {
  pubkey: string;
  metadata: { name: string; thumbnail: string };
}

/**
 * The demo world image of a demo pool's first collateral (collection or token), looked up by pool name in the
 * demo plan. Demo world images are inline SVG data URIs, which the API's image check accepts as they are.
 */
export function getDemoPoolThumbnail(poolName: string): string {
  for (const lender of DEMO_LENDERS) {
    const form = lender.pools.find((p) => p.poolName === poolName);
    if (form === undefined) continue;
    const collection = form.collections?.[0]?.id;
    if (collection !== undefined)
      return (
        [...DEMO_COLLECTIONS, ...DEMO_CORE_COLLECTIONS, ...DEMO_COMPRESSED_COLLECTIONS].find(
          (c) => c.collectionId === collection,
        )?.image ?? ""
      );
    const token = form.tokens?.[0]?.id;
    if (token !== undefined) return DEMO_TOKENS.find((t) => t.mint === token)?.image ?? "";
  }
  return "";
}

async function requestJson(url: string, init?: RequestInit): Promise<{ status: number; body: unknown }> {
  let response: Response;
  try {
    response = await fetch(url, { ...init, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
  } catch (cause) {
    throw new BootstrapError(BOOTSTRAP_ERROR.API_UNREACHABLE, `Cistern API unreachable at ${url}`, { cause });
  }
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON: keep the text for the error message
  }
  return { status: response.status, body };
}

function describeBody(body: unknown): string {
  if (typeof body === "object" && body !== null && "message" in body) return String(body.message);
  return typeof body === "string" ? body.slice(0, 300) : JSON.stringify(body).slice(0, 300);
}

/** Polls GET /dirty/pools-metadata until every pool is indexed; returns the metadata by pool key. */
async function waitForIndexedPools(
  apiUrl: string,
  pools: string[],
  timeoutMs: number,
): Promise<Map<string, MetadataRow["metadata"]>> {
  const deadline = Date.now() + timeoutMs;
  const url = `${apiUrl}/dirty/pools-metadata?pubkeys=${pools.join(",")}&limit=${Math.max(1, pools.length)}`;
  for (;;) {
    const { status, body } = await requestJson(url);
    if (status !== 200 || !Array.isArray(body)) {
      throw new BootstrapError(
        BOOTSTRAP_ERROR.API_UNREACHABLE,
        `GET /dirty/pools-metadata answered ${status}: ${describeBody(body)}`,
      );
    }
    const found = new Map((body as MetadataRow[]).map((r) => [r.pubkey, r.metadata]));
    const missing = pools.filter((p) => !found.has(p));
    if (missing.length === 0) return found;
    if (Date.now() >= deadline) {
      throw new BootstrapError(
        BOOTSTRAP_ERROR.POOLS_NOT_INDEXED,
        `the API at ${apiUrl} did not index ${missing.length} demo pool(s) within ${timeoutMs} ms (${missing.join(", ")}); is it pointed at the same cluster and program?`,
      );
    }
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}

type LenderSigner = Awaited<ReturnType<typeof createKeyPairSignerFromBytes>>;

/** The lender's key from its key file in `<dataDir>/keys/demo-lenders/`. */
async function loadLenderSigner(dataDir: string, lender: DemoLender): Promise<LenderSigner> {
  const keyPath = join(getKeysDir(dataDir), "demo-lenders", basename(lender.keyPath));
  if (!existsSync(keyPath)) {
    throw new BootstrapError(
      BOOTSTRAP_ERROR.KEY_FILE_INVALID,
      `key file of demo lender ${lender.name} not found: ${keyPath}`,
    );
  }
  try {
    const bytes = JSON.parse(readFileSync(keyPath, "utf8")) as number[];
    return await createKeyPairSignerFromBytes(new Uint8Array(bytes));
  } catch (cause) {
    throw new BootstrapError(BOOTSTRAP_ERROR.KEY_FILE_INVALID, `${keyPath} is not a valid keypair file`, {
      cause,
    });
  }
}

/** Asks the API for a link message for the lender (single use, expires) and signs it: {message, signature}. */
async function signIssuedLinkMessage(
  apiUrl: string,
  signer: LenderSigner,
): Promise<{ message: string; signature: string }> {
  const { status, body } = await requestJson(`${apiUrl}/user/link-message`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ wallet: signer.address }),
  });
  const message = (body as { message?: unknown } | null)?.message;
  if (status !== 200 || typeof message !== "string") {
    throw new BootstrapError(
      BOOTSTRAP_ERROR.METADATA_REJECTED,
      `POST /user/link-message was refused (${status}): ${describeBody(body)}`,
    );
  }
  const signature = await signBytes(signer.keyPair.privateKey, new TextEncoder().encode(message));
  return { message, signature: getBase58Decoder().decode(signature) };
}

/**
 * Gives every demo pool its name (and its first collateral's demo image as thumbnail) through the API's real
 * write route, POST /pool/update, signed by the pool owner's key (a link message the API issued, one per pool). Waits for the API to
 * index the demo pools first. Idempotent: a pool whose metadata already matches is not posted again.
 * Throws {@link BootstrapError} (API_UNREACHABLE, POOLS_NOT_INDEXED, KEY_FILE_INVALID or METADATA_REJECTED
 * with the API's message); pools posted before a failure keep their metadata.
 */
export async function publishDemoPoolMetadata(
  options: PublishDemoPoolMetadataOptions,
): Promise<PublishDemoPoolMetadataResult> {
  const apiUrl = options.apiUrl.replace(/\/+$/, "");
  if (!URL.canParse(apiUrl) || !/^https?:$/.test(new URL(apiUrl).protocol)) {
    throw new BootstrapError(
      BOOTSTRAP_ERROR.INVALID_OPTIONS,
      `apiUrl is not an http(s) URL: ${options.apiUrl}`,
    );
  }
  const lenders = options.demo.lenders;
  const poolKeys = lenders.flatMap((l) => l.pools.map((p) => p.address as string));
  if (poolKeys.length === 0) return { pools: [], posted: 0 };
  const current = await waitForIndexedPools(
    apiUrl,
    poolKeys,
    options.indexTimeoutMs ?? DEFAULT_METADATA_INDEX_TIMEOUT_MS,
  );

  const pools: PublishedPoolMetadata[] = [];
  let posted = 0;
  for (const lender of lenders) {
    let signer: LenderSigner | undefined;
    for (const pool of lender.pools) {
      const name = pool.name;
      const thumbnail = getDemoPoolThumbnail(pool.name);
      const now = current.get(pool.address);
      const entry = { pool: pool.address, owner: lender.address, name, thumbnail };
      if (now !== undefined && now.name === name && now.thumbnail === thumbnail) {
        pools.push({ ...entry, action: "unchanged" });
        continue;
      }
      signer ??= await loadLenderSigner(options.dataDir, lender);
      const signed = await signIssuedLinkMessage(apiUrl, signer);
      const { status, body } = await requestJson(`${apiUrl}/pool/update`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          pool: pool.address,
          owner: lender.address,
          ...signed,
          name,
          ...(thumbnail === "" ? {} : { thumbnail }),
        }),
      });
      posted++;
      if (status !== 200) {
        throw new BootstrapError(
          BOOTSTRAP_ERROR.METADATA_REJECTED,
          `POST /pool/update for "${name}" (${pool.address}) of ${lender.name} was refused (${status}): ${describeBody(body)}`,
        );
      }
      pools.push({ ...entry, action: "updated" });
    }
  }
  return { pools, posted };
}
