/** The id of this build, compiled in by vite.config.ts (compared with GET /api/build-id). */
declare const __CISTERN_BUILD_ID__: string;
