import { shortenAddress } from "@cistern/protocol";
import type { UserProfile } from "./profile-data.ts";

/** A wallet as people know it: avatar and display name when it set a profile, else its short address. */
export function ProfileName({ address, profile }: { address: string; profile: UserProfile | undefined }) {
  if (profile === undefined)
    return (
      <span className="pg-short-address" title={address}>
        {shortenAddress(address)}
      </span>
    );
  return (
    <span className="pg-profile-name" title={address} data-testid="profile-name">
      {profile.image !== "" ? <img src={profile.image} alt="" width={20} height={20} loading="lazy" /> : null}
      {profile.username}
    </span>
  );
}
