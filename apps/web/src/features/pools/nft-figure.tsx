import type { NftAsset } from "../../data/nft-assets.ts";

/** An NFT's image (when its metadata has one) beside a label; nothing for a token or an NFT the API cannot name. */
export function NftImage({ asset, size = 48 }: { asset: NftAsset | undefined; size?: number }) {
  if (asset === undefined || asset.image === "") return null;
  return (
    <img
      className="pg-nft-thumb"
      src={asset.image}
      alt=""
      width={size}
      height={size}
      loading="lazy"
      style={{ width: size, height: size }}
      data-testid="nft-image"
    />
  );
}
