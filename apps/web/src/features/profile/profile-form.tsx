import { getErrorText } from "@cistern/protocol";
import { useWallet } from "@solana/wallet-adapter-react";
import { useQueryClient } from "@tanstack/react-query";
import { useEffect, useId, useState } from "react";
import { useAppContext } from "../../app-context.ts";
import { refreshScopes } from "../../data/refresh.ts";
import { useApiQuery } from "../../kit/api.ts";
import { showToast } from "../../toasts/toast-store.ts";
import { requestJson } from "../../tx/http-client.ts";
import { signLinkMessage } from "../../wallet/sign-link.ts";
import { NameImageFields } from "./name-image-fields.tsx";
import { checkNameAndImage } from "./name-image-rules.ts";
import { parseUserProfile } from "./profile-data.ts";

/**
 * The wallet's public profile: a display name and an avatar that lenders and borrowers see on loan rows
 * instead of the wallet address. Saving has the wallet sign the link message; nothing goes on chain.
 */
export function ProfileForm({ owner }: { owner: string }) {
  const { config } = useAppContext();
  const { publicKey, signMessage } = useWallet();
  const queryClient = useQueryClient();
  const current = useApiQuery("profile", "/user/user", { pubkey: owner }, parseUserProfile);
  const id = useId();
  const [name, setName] = useState("");
  const [image, setImage] = useState("");
  const [errors, setErrors] = useState<{ name?: string; image?: string; form?: string }>({});
  const [busy, setBusy] = useState(false);
  const saved = current.data ?? null;
  useEffect(() => {
    setName(saved?.username ?? "");
    setImage(saved?.image ?? "");
  }, [saved?.username, saved?.image]);
  return (
    <form
      className="card pg-section pg-form"
      aria-label="Your profile"
      noValidate
      onSubmit={async (event) => {
        event.preventDefault();
        if (busy || !publicKey) return;
        const found: { name?: string; image?: string; form?: string } = checkNameAndImage(name, image);
        if (name.trim() === "") found.name = "Enter a display name.";
        setErrors(found);
        if (Object.keys(found).length > 0) return;
        setBusy(true);
        try {
          const signed = await signLinkMessage(config.apiUrl, {
            publicKey,
            ...(signMessage ? { signMessage } : {}),
          });
          await requestJson(`${config.apiUrl}/user/update`, {
            body: { pubkey: publicKey.toBase58(), ...signed, username: name.trim(), image: image.trim() },
          });
          showToast({ kind: "success", title: "Profile saved", description: "Others now see your name." });
          await refreshScopes(queryClient, ["profile"]);
        } catch (error) {
          setErrors({ form: getErrorText(error) });
        } finally {
          setBusy(false);
        }
      }}
    >
      <h3>Profile</h3>
      <p className="muted pg-small">
        Lenders and borrowers see this name and picture on your loans instead of your wallet address. Your
        wallet signs a message to prove it is yours; nothing is sent on chain.
      </p>
      <NameImageFields
        id={id}
        labels={{ name: "Display name", image: "Avatar image URL (optional)" }}
        name={name}
        image={image}
        errors={errors}
        onName={setName}
        onImage={setImage}
      />
      <p className="error-text" role="alert" data-testid="profile-error">
        {errors.form ?? ""}
      </p>
      <button type="submit" className="button pg-submit" disabled={busy} data-testid="profile-submit">
        {busy ? "Saving…" : "Save profile"}
      </button>
    </form>
  );
}
