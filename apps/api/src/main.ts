import { loadConfig } from "./config/config.ts";
import { startApi } from "./start-api.ts";

// `npm start -w apps/api`: configuration from the environment, one process, graceful stop on SIGINT/SIGTERM.
const config = loadConfig(process.env);
const api = await startApi(config);
api.app.log.info(`Cistern API on ${api.url} (docs at ${api.url}/docs)`);
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    void api.close().then(() => process.exit(0));
  });
}
