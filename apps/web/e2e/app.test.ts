// @vitest-environment node
import { cp, mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { type LocalnetHandle, startLocalnet } from "@cistern/localnet";
import { shortenAddress } from "@cistern/protocol";
import { Keypair } from "@solana/web3.js";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startWebServer, type WebServer } from "../server.ts";
import { parseRuntimeConfig } from "../src/config/runtime-config.ts";
import { formatAmount } from "../src/kit/format.ts";
import { buildWebApp, launchChromium, makeTempDir, removeDir, TEST_OUTPUT_DIR } from "./harness.ts";

let buildDir: string | undefined;
let dataDir: string | undefined;
let localnet: LocalnetHandle | undefined;
let server: WebServer | undefined;
let browser: Browser | undefined;
let page: Page;
const pageErrors: string[] = [];
const referrer = Keypair.generate().publicKey.toBase58();

beforeAll(async () => {
  await mkdir(TEST_OUTPUT_DIR, { recursive: true });
  buildDir = await makeTempDir("cistern-web-build-");
  dataDir = await makeTempDir("cistern-web-localnet-");
  await buildWebApp(buildDir, "e2e-build");
  localnet = await startLocalnet({ rpcPort: 0, dataDir });
  server = await startWebServer({
    port: 0,
    distDir: buildDir,
    config: parseRuntimeConfig({
      // No API in this test: the home page shows chain and wallet data straight from localnet.
      apiUrl: "http://127.0.0.1:9",
      rpcUrl: localnet.rpcUrl,
      cluster: "localnet",
      referralNames: { friend: referrer },
    }),
  });
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
  page.on("pageerror", (error) => pageErrors.push(error.message));
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
  await localnet?.close();
  await removeDir(buildDir);
  await removeDir(dataDir);
});

async function shot(name: string) {
  await page.screenshot({ path: join(TEST_OUTPUT_DIR, `${name}.png`) });
}

// Generous limits: CI runs every workspace's tests at once on 2 cores.
describe("web app end to end (headless Chromium, localnet, production build)", { timeout: 90_000 }, () => {
  it("prefetches the code of pages whose links are on screen once the page has loaded", async () => {
    const requested: string[] = [];
    const fresh = await browser!.newPage({ viewport: { width: 1280, height: 860 } });
    fresh.on("request", (r) => requested.push(new URL(r.url()).pathname));
    await fresh.goto(server!.url, { waitUntil: "load" });
    await expect
      .poll(() => requested.filter((p) => /\/assets\/(borrow|loans|dashboard)-page-/.test(p)).length, {
        timeout: 10_000,
      })
      .toBe(3);
    await fresh.close();
  });

  it("shows the shell with live chain status and the page title", async () => {
    await page.goto(server!.url);
    expect(await page.title()).toBe("Effortless Token & NFT Lending on Solana");
    await page.getByTestId("chain-status").waitFor({ timeout: 30_000 });
    expect(await page.getByTestId("cluster").textContent()).toBe("localnet");
    // No API in this test: chain performance shows the spec's fallback, marked as an estimate.
    await page.getByText("TPS (estimate)").waitFor({ timeout: 30_000 });
    expect(await page.getByTestId("tps").textContent()).toBe("2,000");
    expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe("dark");
    const background = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    expect(background).toBe("rgb(11, 21, 48)");
    // Icons, manifest and social image are linked and served.
    const links = await page.evaluate(() =>
      [
        ...document.querySelectorAll(
          "link[rel~=icon], link[rel=manifest], link[rel=apple-touch-icon], meta[property='og:image']",
        ),
      ].map((el) => el.getAttribute("href") ?? el.getAttribute("content")),
    );
    expect(links).toEqual([
      "/favicon.svg",
      "/favicon-32.png",
      "/apple-touch-icon.png",
      "/site.webmanifest",
      "/social-image.png",
    ]);
    for (const [path, type] of [
      ["/favicon.svg", "image/svg+xml"],
      ["/favicon-32.png", "image/png"],
      ["/apple-touch-icon.png", "image/png"],
      ["/site.webmanifest", "application/manifest+json; charset=utf-8"],
      ["/social-image.png", "image/png"],
      ["/icon-512.png", "image/png"],
    ] as const) {
      const response = await fetch(`${server!.url}${path}`);
      expect(response.headers.get("content-type"), path).toBe(type);
    }
    await shot("01-home-dark");
  });

  it("connects the development wallet from the modal; the header shows the short address", async () => {
    await page.getByRole("button", { name: "Connect Wallet" }).first().click();
    const dialog = page.getByRole("dialog", { name: "Connect Wallet" });
    await dialog.waitFor();
    expect(await dialog.getByText("You need to connect a Solana wallet.").isVisible()).toBe(true);
    expect(await dialog.getByText("Recommended wallets").isVisible()).toBe(true);
    await shot("02-connect-modal");
    await dialog.getByRole("button", { name: "Development Wallet (localnet)" }).click();
    const addressButton = page.getByTestId("wallet-address");
    await addressButton.waitFor({ timeout: 30_000 });
    // the user asked for it: a toast confirms the connection
    await page.locator(".toast-title", { hasText: "Wallet Connected" }).waitFor({ timeout: 10_000 });
    const secret = await page.evaluate(() => localStorage.getItem("cistern-dev-wallet-secret"));
    const address = Keypair.fromSecretKey(
      Uint8Array.from(JSON.parse(secret!) as number[]),
    ).publicKey.toBase58();
    expect((await addressButton.textContent())?.trim()).toBe(shortenAddress(address));
    expect(await page.evaluate(() => localStorage.getItem("walletName"))).toBe(
      '"Development Wallet (localnet)"',
    );

    await page.getByTestId("faucet").click();
    await page.getByText("Wallet funded").waitFor({ timeout: 45_000 });
    const balances = page.getByTestId("balances");
    await balances.getByText("USDC").waitFor({ timeout: 30_000 });
    // The SOL shown is what the chain holds.
    const response = await fetch(localnet!.rpcUrl, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "getBalance", params: [address] }),
    });
    const { result } = (await response.json()) as { result: { value: number } };
    expect(result.value).toBeGreaterThan(0);
    const solRow = balances.locator("tr", { hasText: "SOL" }).first();
    expect((await solRow.locator("td").textContent())?.trim().split(" ≈ ")[0]).toBe(
      formatAmount(BigInt(result.value), 9),
    );
    // Demo NFTs show their on-chain Metaplex names, tokens their symbols: no bare mint addresses.
    await balances.locator("th", { hasText: "#" }).first().waitFor({ timeout: 30_000 });
    const labels = await balances.locator("th").allTextContents();
    expect(labels.filter((label) => label.includes("..."))).toEqual([]);
    await shot("03-connected-funded");
  });

  it("switches to the light theme and keeps it in color-theme", async () => {
    await page.getByTestId("theme-toggle").click();
    expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe("light");
    expect(await page.evaluate(() => localStorage.getItem("color-theme"))).toBe("light");
    expect(await page.evaluate(() => getComputedStyle(document.body).backgroundColor)).toBe(
      "rgb(224, 247, 250)",
    );
    await shot("04-light-theme");
  });

  it("applies a referral link: cookie for 60 days and a toast naming the referrer; the wallet reconnects", async () => {
    await page.goto(`${server!.url}/?referral=friend`);
    await page.getByText(`You were referred by ${referrer}`).waitFor({ timeout: 30_000 });
    const cookie = (await page.context().cookies()).find((c) => c.name === "referral");
    expect(cookie?.value).toBe(referrer);
    const days = (cookie!.expires - Date.now() / 1000) / 86_400;
    expect(days).toBeGreaterThan(59.9);
    expect(days).toBeLessThanOrEqual(60);
    // The theme survived the reload and the selected wallet auto-connected once.
    expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe("light");
    await page.getByTestId("wallet-address").waitFor({ timeout: 30_000 });
    // the remembered wallet reconnected silently: no "Wallet Connected" toast on a reload
    await page.waitForTimeout(500);
    expect(await page.locator(".toast-title", { hasText: "Wallet Connected" }).count()).toBe(0);
    await shot("05-referral");
  });

  it("shows the connect modal at 28rem x 576px on wide screens and as a full-width bottom sheet on phones", async () => {
    // Connected: the wallet menu's 'Change wallet' opens the modal, with the wallet under 'Recently used'.
    await page.getByTestId("wallet-address").click();
    await page.getByRole("menuitem", { name: "Change wallet" }).click();
    await page.getByText("Recently used").waitFor();
    const modal = page.locator(".wallet-modal");
    await modal.waitFor();
    const wide = await modal.evaluate((el) => {
      const style = getComputedStyle(el);
      return { maxWidth: style.maxWidth, maxHeight: style.maxHeight };
    });
    expect(wide).toEqual({ maxWidth: "448px", maxHeight: "576px" });
    await page.setViewportSize({ width: 375, height: 740 });
    const box = (await modal.boundingBox())!;
    expect(box.width).toBe(375);
    expect(Math.round(box.y + box.height)).toBe(740);
    await shot("06-modal-phone");
    await page.mouse.move(200, 40);
    await page.mouse.down();
    await page.mouse.up();
    await modal.waitFor({ state: "detached" });
    await shot("06b-home-phone");
    await page.setViewportSize({ width: 1280, height: 860 });
  });

  it("discovers an installed wallet-standard wallet and recommends Phantom, Solflare and Backpack when missing", async () => {
    const injected = Keypair.generate();
    const context = await browser!.newContext({ viewport: { width: 1280, height: 860 } });
    // a minimal wallet-standard wallet, registered the way extensions do
    await context.addInitScript(
      ({ address, publicKey }: { address: string; publicKey: number[] }) => {
        const chains = ["solana:mainnet", "solana:devnet", "solana:localnet"];
        const account = {
          address,
          publicKey: new Uint8Array(publicKey),
          chains,
          features: ["solana:signTransaction"],
        };
        const listeners: ((p: unknown) => void)[] = [];
        const wallet = {
          version: "1.0.0",
          name: "Test Wallet",
          icon: `data:image/svg+xml;base64,${btoa('<svg xmlns="http://www.w3.org/2000/svg" width="32" height="32"><rect width="32" height="32" fill="#0a0"/></svg>')}`,
          chains,
          accounts: [] as unknown[],
          features: {
            "standard:connect": {
              version: "1.0.0",
              connect: async () => {
                wallet.accounts = [account];
                for (const l of listeners) l({ accounts: wallet.accounts });
                return { accounts: wallet.accounts };
              },
            },
            "standard:disconnect": {
              version: "1.0.0",
              disconnect: async () => {
                wallet.accounts = [];
              },
            },
            "standard:events": {
              version: "1.0.0",
              on: (_event: string, listener: (p: unknown) => void) => {
                listeners.push(listener);
                return () => undefined;
              },
            },
            "solana:signTransaction": {
              version: "1.0.0",
              supportedTransactionVersions: ["legacy", 0],
              signTransaction: async () => {
                throw new Error("not used in this test");
              },
            },
          },
        };
        const register = ({ register }: { register: (w: unknown) => void }) => register(wallet);
        window.addEventListener("wallet-standard:app-ready", (e) =>
          register((e as CustomEvent).detail as { register: (w: unknown) => void }),
        );
        window.dispatchEvent(new CustomEvent("wallet-standard:register-wallet", { detail: register }));
      },
      { address: injected.publicKey.toBase58(), publicKey: Array.from(injected.publicKey.toBytes()) },
    );
    const fresh = await context.newPage();
    fresh.on("pageerror", (error) => pageErrors.push(error.message));
    await fresh.goto(server!.url);
    await fresh.getByRole("button", { name: "Connect Wallet" }).first().click();
    const dialog = fresh.getByRole("dialog", { name: "Connect Wallet" });
    await dialog.getByText("Recommended wallets").waitFor();
    for (const name of ["Test Wallet", "Phantom", "Solflare", "Backpack"]) {
      const item = dialog.locator(`button[data-wallet="${name}"]`);
      await item.waitFor();
      expect(await item.locator("img").getAttribute("src")).toMatch(/^data:image\/svg\+xml/);
    }
    // every item fits inside the dialog (long names shorten)
    const dialogBox = (await dialog.boundingBox())!;
    for (const box of await Promise.all(
      (await dialog.locator(".wallet-item").all()).map((i) => i.boundingBox()),
    ))
      expect(box!.x + box!.width).toBeLessThanOrEqual(dialogBox.x + dialogBox.width);
    await fresh.screenshot({ path: join(TEST_OUTPUT_DIR, "06d-recommended-wallets.png") });
    // a recommended wallet that is not installed: the spec's screen, and a way back
    await dialog.locator('button[data-wallet="Backpack"]').click();
    await dialog.getByRole("heading", { name: "Have you installed Backpack?" }).waitFor();
    await dialog.getByRole("button", { name: /Go back/ }).click();
    await dialog.getByText("Recommended wallets").waitFor();
    // the installed one connects, and the header shows its address
    await dialog.locator('button[data-wallet="Test Wallet"]').click();
    await fresh.getByTestId("wallet-address").waitFor({ timeout: 30_000 });
    expect((await fresh.getByTestId("wallet-address").textContent())?.trim()).toBe(
      shortenAddress(injected.publicKey.toBase58()),
    );
    await context.close();
  });

  it("opens the settings side panel and stores the preferred explorer", async () => {
    await page.getByTestId("open-settings").click();
    const panel = page.getByRole("complementary", { name: "Settings panel" });
    // each priority level shows what it adds to a typical transaction; the levels differ even on a quiet localnet
    const estimates = await Promise.all(
      (["medium", "fast", "ultra"] as const).map(async (level) => {
        const hint = panel.getByTestId(`priority-${level}`).locator(".segmented-hint");
        await hint.waitFor({ timeout: 10_000 });
        return (await hint.textContent())!.trim();
      }),
    );
    expect(estimates).toEqual(["≈ 0.0000001 SOL", "≈ 0.00000015 SOL", "≈ 0.0000003 SOL"]);
    await panel.getByTestId("explorer-select").selectOption("solscan");
    expect(await page.evaluate(() => localStorage.getItem("preferred-explorer"))).toBe("solscan");
    await shot("06c-settings");
    await page.keyboard.press("Escape");
    await panel.waitFor({ state: "detached" });
  });

  it("disconnects", async () => {
    await page.getByTestId("wallet-address").click();
    await page.getByRole("menuitem", { name: "Disconnect" }).click();
    await page.getByRole("button", { name: "Connect Wallet" }).first().waitFor();
    expect(await page.getByTestId("wallet-address").count()).toBe(0);
    expect(await page.evaluate(() => localStorage.getItem("walletName"))).toBeNull();
    expect(await page.getByTestId("balances").count()).toBe(0);
    await shot("07-disconnected");
    // Onboarding from the modal.
    await page.getByRole("button", { name: "Connect Wallet" }).first().click();
    await page.getByRole("button", { name: "I don't have a wallet" }).click();
    await page.getByRole("button", { name: "Get Started" }).click();
    await page.getByText("Popular wallets to get started").waitFor();
    // each popular wallet has its icon, and Go back is reachable on a phone too
    expect(await page.locator(".wallet-links img.wallet-icon").count()).toBe(6);
    await page.setViewportSize({ width: 375, height: 740 });
    const back = page.getByRole("button", { name: /Go back/ });
    await back.scrollIntoViewIfNeeded();
    expect(await back.isVisible()).toBe(true);
    await back.click();
    await page.getByRole("button", { name: "Get Started" }).waitFor();
    await page.setViewportSize({ width: 1280, height: 860 });
    await page.getByRole("button", { name: "Get Started" }).click();
    await page.getByText("Popular wallets to get started").waitFor();
    await shot("07b-onboarding");
    await page.keyboard.press("Escape");
    expect(pageErrors).toEqual([]);
  });

  it("shows the website-update banner for a newer build; loads configured third-party scripts with their timings", async () => {
    const newerDir = await makeTempDir("cistern-web-newer-");
    await cp(buildDir!, newerDir, { recursive: true });
    await writeFile(join(newerDir, "build-id.json"), JSON.stringify({ buildId: "e2e-build-2" }));
    // Stand-ins for the configured swap plugin and session recorder: they record when they ran.
    await writeFile(
      join(newerDir, "swap-plugin.js"),
      "window.swapPluginRanBeforeApp = !document.querySelector('.app-header .header-actions');",
    );
    await writeFile(join(newerDir, "recorder.js"), "window.recorderRanAt = performance.now();");
    const newer = await startWebServer({
      port: 0,
      distDir: newerDir,
      config: parseRuntimeConfig({ cluster: "devnet" }),
    });
    const withScripts = await startWebServer({
      port: 0,
      distDir: newerDir,
      config: parseRuntimeConfig({
        cluster: "devnet",
        swapPluginScriptUrl: `${newer.url}/swap-plugin.js`,
        sessionRecordingScriptUrl: `${newer.url}/recorder.js`,
      }),
    });
    try {
      const other = await browser!.newPage();
      await other.goto(newer.url);
      await other.getByText("A new version of the website is available.").waitFor({ timeout: 30_000 });
      expect(await other.getByRole("button", { name: "Refresh" }).isVisible()).toBe(true);
      await other.screenshot({ path: join(TEST_OUTPUT_DIR, "08-update-banner.png") });
      // Not configured: neither script is in the page.
      expect(await other.locator("script[data-swap-plugin], script[data-session-recording]").count()).toBe(0);

      await other.goto(withScripts.url);
      expect(
        await other.evaluate(() => (window as { swapPluginRanBeforeApp?: boolean }).swapPluginRanBeforeApp),
      ).toBe(true);
      const loadEnd = await other.evaluate(
        () => performance.getEntriesByType("navigation")[0]!.toJSON().loadEventEnd,
      );
      await other.waitForFunction(
        () => (window as { recorderRanAt?: number }).recorderRanAt !== undefined,
        null,
        {
          timeout: 30_000,
        },
      );
      const ranAt = await other.evaluate(() => (window as { recorderRanAt?: number }).recorderRanAt!);
      expect(ranAt - loadEnd).toBeGreaterThanOrEqual(5000);
      await other.close();
    } finally {
      await withScripts.close();
      await newer.close();
      await removeDir(newerDir);
    }
  });
});
