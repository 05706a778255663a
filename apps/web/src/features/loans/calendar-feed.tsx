import { getErrorText } from "@cistern/protocol";
import { useWallet } from "@solana/wallet-adapter-react";
import { useState } from "react";
import { useAppContext } from "../../app-context.ts";
import { requestJson } from "../../tx/http-client.ts";
import { signMessageOrThrow } from "../../wallet/wallet-errors.ts";

function toBase64(bytes: Uint8Array): string {
  let text = "";
  for (const byte of bytes) text += String.fromCharCode(byte);
  return btoa(text);
}

/**
 * A private calendar feed of all the wallet's loans (due dates and grace ends, kept up to date by the calendar
 * app): the wallet signs a message once, the API answers an unguessable address; asking again replaces it.
 */
export function CalendarFeed() {
  const { config } = useAppContext();
  const wallet = useWallet();
  const [url, setUrl] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  if (wallet.publicKey === null) return null;
  const owner = wallet.publicKey.toBase58();
  return (
    <div className="pg-row pg-small" data-testid="calendar-feed">
      {url === null ? (
        <button
          type="button"
          className="button button-small"
          disabled={busy}
          onClick={async () => {
            setBusy(true);
            setError(null);
            try {
              const { message } = await requestJson<{ message: string }>(
                `${config.apiUrl}/calendar/feed-message`,
                {
                  body: { wallet: owner },
                },
              );
              const signature = await signMessageOrThrow(
                { walletName: wallet.wallet?.adapter.name ?? null, signMessage: wallet.signMessage },
                new TextEncoder().encode(message),
              );
              const feed = await requestJson<{ path: string }>(`${config.apiUrl}/calendar/feed`, {
                body: { wallet: owner, message, signature: toBase64(signature) },
              });
              setUrl(`${config.apiUrl}${feed.path}`);
            } catch (e) {
              setError(getErrorText(e));
            } finally {
              setBusy(false);
            }
          }}
        >
          Subscribe to your loan dates in a calendar app
        </button>
      ) : (
        <span>
          Your private calendar feed (anyone with this address sees your loan dates):{" "}
          <a href={url.replace(/^https?:/, "webcal:")} data-testid="calendar-feed-url">
            {url}
          </a>
        </span>
      )}
      {error ? (
        <small className="error-text" role="alert">
          {error}
        </small>
      ) : null}
    </div>
  );
}
