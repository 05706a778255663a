/**
 * Renders the PNG icons and the social image from SVG with headless Chromium (Debian's
 * /usr/bin/chromium). Run: npx tsx apps/web/scripts/make-assets.ts — the outputs are committed.
 */
import { readFile, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

const publicDir = join(dirname(fileURLToPath(import.meta.url)), "..", "public");
const icon = await readFile(join(publicDir, "favicon.svg"), "utf8");

const socialHtml = `<!doctype html><html><body style="margin:0">
<div style="width:1200px;height:630px;box-sizing:border-box;padding:80px;display:flex;flex-direction:column;justify-content:space-between;
  background:radial-gradient(circle at 85% 15%, #1e3a8a 0, transparent 45%), radial-gradient(circle at 10% 90%, #115e59 0, transparent 40%), #0b1530;
  color:#e7eefc;font-family:'DejaVu Sans',sans-serif">
  <div style="display:flex;align-items:center;gap:24px;font-size:44px;font-weight:700">
    <div style="width:96px;height:96px">${icon.replace("<svg ", '<svg width="96" height="96" ')}</div>Cistern
  </div>
  <div>
    <div style="font-size:68px;font-weight:800;line-height:1.08;letter-spacing:-1px">Effortless Token &amp; NFT<br/>Lending on Solana</div>
    <div style="margin-top:24px;font-size:30px;color:#93a3c4">Borrow against tokens and NFTs, or lend from pools. No price-based liquidations.</div>
  </div>
</div></body></html>`;

const browser = await chromium.launch({
  executablePath: "/usr/bin/chromium",
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"],
});
try {
  const page = await browser.newPage();
  for (const [file, size] of [
    ["favicon-32.png", 32],
    ["apple-touch-icon.png", 180],
    ["icon-192.png", 192],
    ["icon-512.png", 512],
  ] as const) {
    await page.setViewportSize({ width: size, height: size });
    const svg = icon.replace("<svg ", `<svg width="${size}" height="${size}" `);
    await page.setContent(`<html><body style="margin:0;background:transparent">${svg}</body></html>`);
    await writeFile(join(publicDir, file), await page.screenshot({ omitBackground: true }));
  }
  await page.setViewportSize({ width: 1200, height: 630 });
  await page.setContent(socialHtml);
  await writeFile(join(publicDir, "social-image.png"), await page.screenshot());
} finally {
  await browser.close();
}
console.log(`assets written to ${publicDir}`);
