import {
  BaseMessageSignerWalletAdapter,
  isVersionedTransaction,
  type TransactionOrVersionedTransaction,
  WalletConnectionError,
  type WalletName,
  WalletNotConnectedError,
  WalletReadyState,
  WalletSignMessageError,
  WalletSignTransactionError,
} from "@solana/wallet-adapter-base";
import { Keypair, type PublicKey, type TransactionVersion } from "@solana/web3.js";
import { readStorage, writeStorage } from "../lib/storage.ts";

/** Name shown in the connect modal; the label says it is for localnet development only. */
export const DEV_WALLET_NAME = "Development Wallet (localnet)" as WalletName<"Development Wallet (localnet)">;
/** localStorage key of the development wallet's secret key (JSON array of 64 bytes). */
export const DEV_WALLET_STORAGE_KEY = "cistern-dev-wallet-secret";

const DEV_WALLET_ICON = `data:image/svg+xml;base64,${btoa(
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="8" fill="#f59e0b"/><path d="M9 10h8a6 6 0 0 1 0 12H9z" fill="none" stroke="#1f2937" stroke-width="3"/></svg>',
)}`;

/** Loads the development keypair from local storage, creating and storing one on first use. */
export function loadOrCreateDevKeypair(): Keypair {
  const stored = readStorage(DEV_WALLET_STORAGE_KEY);
  if (stored !== null) {
    try {
      const bytes = JSON.parse(stored) as unknown;
      if (Array.isArray(bytes) && bytes.length === 64)
        return Keypair.fromSecretKey(Uint8Array.from(bytes as number[]));
    } catch {
      // Corrupt entry: replaced below.
    }
  }
  const keypair = Keypair.generate();
  writeStorage(DEV_WALLET_STORAGE_KEY, JSON.stringify(Array.from(keypair.secretKey)));
  return keypair;
}

/** PKCS#8 prefix of an Ed25519 private key; the 32-byte seed follows. */
const ED25519_PKCS8_PREFIX = Uint8Array.from([
  0x30, 0x2e, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x04, 0x22, 0x04, 0x20,
]);

/** Signs a message with the keypair's Ed25519 key via WebCrypto. */
export async function signMessageWithKeypair(keypair: Keypair, message: Uint8Array): Promise<Uint8Array> {
  const pkcs8 = new Uint8Array(48);
  pkcs8.set(ED25519_PKCS8_PREFIX);
  pkcs8.set(keypair.secretKey.slice(0, 32), 16);
  const key = await crypto.subtle.importKey("pkcs8", pkcs8, { name: "Ed25519" }, false, ["sign"]);
  return new Uint8Array(
    await crypto.subtle.sign({ name: "Ed25519" }, key, message as Uint8Array<ArrayBuffer>),
  );
}

/**
 * A wallet adapter for local development: its keypair lives in local storage and it signs with
 * @solana/web3.js Keypair. The app offers it only when the cluster is localnet.
 */
export class DevWalletAdapter extends BaseMessageSignerWalletAdapter<typeof DEV_WALLET_NAME> {
  name = DEV_WALLET_NAME;
  url = "https://docs.solana.com/cli/wallets/file-system";
  icon = DEV_WALLET_ICON;
  readonly supportedTransactionVersions: ReadonlySet<TransactionVersion> = new Set<TransactionVersion>([
    "legacy",
    0,
  ]);
  private keypair: Keypair | null = null;
  private isConnecting = false;

  get readyState(): WalletReadyState {
    return typeof window === "undefined" ? WalletReadyState.Unsupported : WalletReadyState.Installed;
  }

  get publicKey(): PublicKey | null {
    return this.keypair?.publicKey ?? null;
  }

  get connecting(): boolean {
    return this.isConnecting;
  }

  async connect(): Promise<void> {
    if (this.connected || this.isConnecting) return;
    this.isConnecting = true;
    try {
      this.keypair = loadOrCreateDevKeypair();
      this.emit("connect", this.keypair.publicKey);
    } catch (error) {
      const wrapped = new WalletConnectionError(
        error instanceof Error ? error.message : String(error),
        error,
      );
      this.emit("error", wrapped);
      throw wrapped;
    } finally {
      this.isConnecting = false;
    }
  }

  async disconnect(): Promise<void> {
    if (this.keypair === null) return;
    this.keypair = null;
    this.emit("disconnect");
  }

  private requireKeypair(): Keypair {
    if (this.keypair === null) throw new WalletNotConnectedError();
    return this.keypair;
  }

  async signTransaction<T extends TransactionOrVersionedTransaction<this["supportedTransactionVersions"]>>(
    transaction: T,
  ): Promise<T> {
    const keypair = this.requireKeypair();
    try {
      if (isVersionedTransaction(transaction)) transaction.sign([keypair]);
      else transaction.partialSign(keypair);
      return transaction;
    } catch (error) {
      throw new WalletSignTransactionError(error instanceof Error ? error.message : String(error), error);
    }
  }

  async signMessage(message: Uint8Array): Promise<Uint8Array> {
    const keypair = this.requireKeypair();
    try {
      return await signMessageWithKeypair(keypair, message);
    } catch (error) {
      throw new WalletSignMessageError(error instanceof Error ? error.message : String(error), error);
    }
  }
}

/** Asks the localnet to fund `address` (SOL, USDC, demo tokens and NFTs) via its admin RPC. */
export async function requestLocalnetFaucet(rpcUrl: string, address: string): Promise<unknown> {
  const response = await fetch(rpcUrl, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "localnet_faucet", params: [address] }),
  });
  if (!response.ok) throw new Error(`Faucet request failed with status ${response.status}`);
  const body = (await response.json()) as { result?: unknown; error?: { message?: string } };
  if (body.error) throw new Error(`Faucet failed: ${body.error.message ?? JSON.stringify(body.error)}`);
  return body.result;
}
