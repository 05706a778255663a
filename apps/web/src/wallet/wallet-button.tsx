import { shortenAddress } from "@cistern/protocol";
import { useWallet } from "@solana/wallet-adapter-react";
import { useEffect, useRef, useState } from "react";
import { openWalletModal } from "./wallet-modal-store.ts";

/** Header wallet control: 'Connect Wallet', 'Connecting...', or the short address with a menu. */
export function WalletButton() {
  const { publicKey, connecting, disconnecting, disconnect, wallet } = useWallet();
  const [menuOpen, setMenuOpen] = useState(false);
  const [copied, setCopied] = useState(false);
  const ref = useRef<HTMLDivElement>(null);

  useEffect(() => {
    if (!menuOpen) return;
    const onMouseUp = (event: MouseEvent) => {
      if (ref.current && event.target instanceof Node && !ref.current.contains(event.target))
        setMenuOpen(false);
    };
    document.addEventListener("mouseup", onMouseUp);
    return () => document.removeEventListener("mouseup", onMouseUp);
  }, [menuOpen]);

  if (!publicKey) {
    return (
      <button type="button" className="button button-primary" onClick={openWalletModal} disabled={connecting}>
        {connecting ? "Connecting..." : "Connect Wallet"}
      </button>
    );
  }
  const address = publicKey.toBase58();
  return (
    <div className="wallet-menu" ref={ref}>
      <button
        type="button"
        className="button wallet-address"
        aria-haspopup="menu"
        aria-expanded={menuOpen}
        onClick={() => setMenuOpen((v) => !v)}
        data-testid="wallet-address"
      >
        {wallet?.adapter.icon ? <img src={wallet.adapter.icon} alt="" width={18} height={18} /> : null}
        <span>{shortenAddress(address)}</span>
      </button>
      {menuOpen ? (
        <div className="wallet-menu-list" role="menu">
          <button
            type="button"
            role="menuitem"
            onClick={() => {
              void navigator.clipboard?.writeText(address).then(() => setCopied(true));
            }}
          >
            {copied ? "Copied" : "Copy address"}
          </button>
          <button
            type="button"
            role="menuitem"
            onClick={() => {
              setMenuOpen(false);
              openWalletModal();
            }}
          >
            Change wallet
          </button>
          <button
            type="button"
            role="menuitem"
            disabled={disconnecting}
            onClick={() => {
              setMenuOpen(false);
              void disconnect();
            }}
          >
            Disconnect
          </button>
        </div>
      ) : null}
    </div>
  );
}
