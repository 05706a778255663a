import { parsePool, SIGNED_LINK_MESSAGE } from "@cistern/protocol";
import { Keypair } from "@solana/web3.js";
import { cleanup, fireEvent, screen, waitFor } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { PoolMetadataForm } from "../../src/features/my-pools/pool-metadata-form.tsx";
import { apiPool } from "./fixtures.ts";
import { installApi, makeWallet, renderPage } from "./render-page.tsx";

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe("pool name and image", () => {
  const owner = Keypair.generate();
  const pool = parsePool(apiPool({ owner: owner.publicKey.toBase58() }));

  it("refuses a twimg image and an image the API rejects, sending nothing", async () => {
    const requests = installApi((r) =>
      r.path === "/asset/image-check"
        ? { body: { accepted: false, url: "x", reason: "text/html" } }
        : undefined,
    );
    const signMessage = vi.fn(async (m: Uint8Array) => m);
    renderPage(<PoolMetadataForm pool={pool} />, { wallet: { ...makeWallet(owner), signMessage } });
    fireEvent.change(screen.getByLabelText("Image URL"), {
      target: { value: "https://pbs.twimg.com/x.png" },
    });
    fireEvent.click(screen.getByTestId("metadata-submit"));
    expect(screen.getByTestId("error-image").textContent).toBe(
      "Images hosted on twimg are not supported; use another URL.",
    );
    expect(requests).toEqual([]);
    fireEvent.change(screen.getByLabelText("Image URL"), { target: { value: "https://example.com/page" } });
    fireEvent.click(screen.getByTestId("metadata-submit"));
    expect((await screen.findByTestId("error-image")).textContent).toBe(
      "The image URL does not serve an image (text/html).",
    );
    expect(signMessage).not.toHaveBeenCalled();
    expect(requests.filter((r) => r.method === "POST")).toEqual([]);
  });

  it("explains wallets that cannot sign messages", async () => {
    installApi(() => undefined);
    renderPage(<PoolMetadataForm pool={pool} />, { wallet: makeWallet(owner) });
    fireEvent.change(screen.getByLabelText("Pool name"), { target: { value: "Otter desk" } });
    fireEvent.click(screen.getByTestId("metadata-submit"));
    await waitFor(() =>
      expect(screen.getByTestId("metadata-error").textContent).toBe(
        "Wallet does not support signing messages. Ledger are not supported for now to update pool metadata.",
      ),
    );
  });

  it("asks the API for the link message, signs exactly it and sends name, image, message and signature", async () => {
    const issued = `${SIGNED_LINK_MESSAGE}\nWallet: ${owner.publicKey.toBase58()}\nNonce: ${"0a".repeat(16)}\nExpires: 2026-11-25T12:00:00.000Z`;
    const requests = installApi((r) => {
      if (r.path === "/asset/image-check") return { body: { accepted: true, url: "x" } };
      if (r.path === "/user/link-message")
        return { body: { message: issued, nonce: "0a".repeat(16), expiresAt: 1 } };
      if (r.path === "/pool/update")
        return { body: { pool: pool.pubkey, name: "Otter desk", thumbnail: "" } };
      return undefined;
    });
    const signMessage = vi.fn(async (_message: Uint8Array) => new Uint8Array(64).fill(7));
    renderPage(<PoolMetadataForm pool={pool} />, { wallet: { ...makeWallet(owner), signMessage } });
    fireEvent.change(screen.getByLabelText("Pool name"), { target: { value: " Otter desk " } });
    fireEvent.change(screen.getByLabelText("Image URL"), {
      target: { value: "https://example.com/otter.png" },
    });
    fireEvent.click(screen.getByTestId("metadata-submit"));
    await waitFor(() => expect(requests.some((r) => r.path === "/pool/update")).toBe(true));
    expect(requests.find((r) => r.path === "/user/link-message")!.body).toEqual({
      wallet: owner.publicKey.toBase58(),
    });
    expect(new TextDecoder().decode(signMessage.mock.calls[0]![0])).toBe(issued);
    expect(requests.find((r) => r.path === "/pool/update")!.body).toEqual({
      pool: pool.pubkey,
      owner: owner.publicKey.toBase58(),
      signature: Buffer.from(new Uint8Array(64).fill(7)).toString("base64"),
      message: issued,
      name: "Otter desk",
      thumbnail: "https://example.com/otter.png",
    });
  });
});
