import { getErrorText, type ParsedPool } from "@cistern/protocol";
import { useWallet } from "@solana/wallet-adapter-react";
import type { PublicKey } from "@solana/web3.js";
import { useQueryClient } from "@tanstack/react-query";
import { useId, useState } from "react";
import { useAppContext } from "../../app-context.ts";
import { refreshScopes } from "../../data/refresh.ts";
import { toQueryString } from "../../kit/api.ts";
import { showToast } from "../../toasts/toast-store.ts";
import { requestJson } from "../../tx/http-client.ts";
import { signLinkMessage } from "../../wallet/sign-link.ts";
import { NameImageFields } from "../profile/name-image-fields.tsx";
import { checkNameAndImage } from "../profile/name-image-rules.ts";

/**
 * Saves a pool's name and image: the wallet signs the link message (proof of ownership, nothing on chain) and
 * both go to POST /pool/update.
 */
export async function savePoolMetadata(
  apiUrl: string,
  wallet: {
    publicKey: PublicKey | null;
    signMessage?: ((message: Uint8Array) => Promise<Uint8Array>) | undefined;
  },
  pool: string,
  name: string,
  thumbnail: string,
): Promise<void> {
  if (!wallet.publicKey) throw new Error("Connect the pool owner's wallet.");
  const { message, signature } = await signLinkMessage(apiUrl, {
    publicKey: wallet.publicKey,
    ...(wallet.signMessage ? { signMessage: wallet.signMessage } : {}),
  });
  await requestJson(`${apiUrl}/pool/update`, {
    body: { pool, owner: wallet.publicKey.toBase58(), signature, message, name, thumbnail },
  });
}

/**
 * A pool's name and image. Saving asks the API whether the image URL serves an image, then has the
 * wallet sign the link message (proof of ownership) and sends both to POST /pool/update.
 */
export function PoolMetadataForm({ pool }: { pool: ParsedPool }) {
  const { config } = useAppContext();
  const { publicKey, signMessage } = useWallet();
  const queryClient = useQueryClient();
  const id = useId();
  const [name, setName] = useState(pool.metadata.name);
  const [image, setImage] = useState(pool.metadata.thumbnail);
  const [errors, setErrors] = useState<{ name?: string; image?: string; form?: string }>({});
  const [busy, setBusy] = useState(false);
  return (
    <form
      className="card pg-section pg-form"
      aria-label="Pool name and image"
      noValidate
      onSubmit={async (event) => {
        event.preventDefault();
        if (busy || !publicKey) return;
        const found: { name?: string; image?: string; form?: string } = checkNameAndImage(name, image);
        setErrors(found);
        if (Object.keys(found).length > 0) return;
        setBusy(true);
        try {
          if (image.trim() !== "" && image.trim() !== pool.metadata.thumbnail) {
            const check = await requestJson<{ accepted: boolean; reason?: string }>(
              `${config.apiUrl}/asset/image-check${toQueryString({ url: image.trim() })}`,
            );
            if (!check.accepted) {
              setErrors({ image: `The image URL does not serve an image (${check.reason ?? "rejected"}).` });
              return;
            }
          }
          await savePoolMetadata(
            config.apiUrl,
            { publicKey, ...(signMessage ? { signMessage } : {}) },
            pool.pubkey,
            name.trim(),
            image.trim(),
          );
          showToast({ kind: "success", title: "Pool updated", description: "Name and image saved." });
          await refreshScopes(queryClient, ["mypool", "pool"]);
        } catch (error) {
          setErrors({ form: getErrorText(error) });
        } finally {
          setBusy(false);
        }
      }}
    >
      <h2>Name and image</h2>
      <p className="muted pg-small">
        Your wallet signs a message to prove you own the pool; nothing is sent on chain.
      </p>
      <NameImageFields
        id={id}
        labels={{ name: "Pool name", image: "Image URL" }}
        name={name}
        image={image}
        errors={errors}
        onName={setName}
        onImage={setImage}
      />
      <p className="error-text" role="alert" data-testid="metadata-error">
        {errors.form ?? ""}
      </p>
      <button type="submit" className="button pg-submit" disabled={busy} data-testid="metadata-submit">
        {busy ? "Saving…" : "Save name and image"}
      </button>
    </form>
  );
}
