import { loadConfig } from "../config/config.ts";
import { openDatabase } from "../db/open-database.ts";
import { createRpcClient } from "../solana/rpc-client.ts";
import { createIndexer, INDEXER_LOCK_KEY } from "./indexer.ts";

// `npm run reindex -w apps/api`: rebuilds banks, pools, loans and loan events from the chain (same
// environment as the API: SOLANA_RPC_URL, LENDING_PROGRAM_ID, DATABASE_URL or DATA_DIR).
const config = loadConfig(process.env);
if (config.lendingProgramId === undefined) {
  console.error("reindex needs LENDING_PROGRAM_ID");
  process.exit(2);
}
const db = await openDatabase(config);
try {
  if (!(await db.tryAdvisoryLock(INDEXER_LOCK_KEY))) {
    console.error("another process is indexing this database; stop it before reindexing");
    process.exitCode = 1;
  } else {
    const log = {
      info: () => undefined,
      warn: (o: unknown, m?: string) => console.warn(m ?? o),
      error: console.error,
    };
    const indexer = createIndexer({
      db,
      rpc: createRpcClient(config.solanaRpcUrl),
      wsUrl: config.solanaWsUrl,
      programId: config.lendingProgramId,
      reconcileIntervalMs: config.reconcileIntervalMs,
      log,
    });
    const result = await indexer.reindex();
    console.log(
      `reindexed at slot ${result.slot}: ${result.banks} banks, ${result.pools} pools, ${result.loans} loans`,
    );
  }
} finally {
  await db.close();
}
