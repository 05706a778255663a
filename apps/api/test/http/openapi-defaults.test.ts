import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, makeCatalog, type TestApp } from "../helpers/test-app.ts";
import { createTestDatabase, type TestDatabase } from "../helpers/test-database.ts";

describe("the OpenAPI document", () => {
  let t: TestDatabase;
  let api: TestApp;
  beforeAll(async () => {
    t = await createTestDatabase("pglite");
    api = await createTestApp(t.db, { catalog: makeCatalog("DMRNzqaFoaoaVmVnzTv4YsCHM8rVUrymgtyv2MYeebsL") });
    await api.app.ready();
  });
  afterAll(async () => {
    await api.app.close();
    await t.drop();
  });

  it("marks no parameter that has a default as required", async () => {
    const doc = (await api.app.inject({ url: "/docs/json" })).json() as {
      paths: Record<
        string,
        Record<
          string,
          { parameters?: { name: string; required?: boolean; schema?: { default?: unknown } }[] }
        >
      >;
    };
    const wrong: string[] = [];
    for (const [path, methods] of Object.entries(doc.paths))
      for (const [method, op] of Object.entries(methods))
        for (const p of op.parameters ?? [])
          if (p.required === true && p.schema?.default !== undefined)
            wrong.push(`${method.toUpperCase()} ${path} ${p.name}`);
    expect(wrong).toEqual([]);
  });
});
