import {
  getWalletModalLayout,
  MODAL_FADE_MS,
  type WalletReadyState as ProtocolReadyState,
  sortWallets,
} from "@cistern/protocol";
import { type Adapter, WalletReadyState } from "@solana/wallet-adapter-base";
import { SolanaMobileWalletAdapterWalletName } from "@solana-mobile/wallet-adapter-mobile";
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { trapFocus } from "../../lib/focus-trap.ts";
import { letterIcon } from "../deep-link-wallets.ts";
import { MORE_WALLETS_URL, ONBOARDING_WALLETS } from "./onboarding-wallets.ts";
import { type Language, translate } from "./translations.ts";

export type WalletModalTheme = "light" | "dark" | "jupiter";

/** Modal fade, milliseconds (150). */
export const WALLET_MODAL_FADE_MS = MODAL_FADE_MS;

interface ModalWallet {
  name: string;
  readyState: ProtocolReadyState;
  adapter: Adapter;
}

/** The protocol's modal layout over adapters: sorted by ready state and precedence, then grouped. */
export function getModalGroups(
  adapters: Adapter[],
  previouslyConnected: readonly string[],
  precedence: readonly string[],
) {
  const entries: ModalWallet[] = adapters
    .filter((adapter) => adapter.readyState !== WalletReadyState.Unsupported)
    .map((adapter) => ({
      name: adapter.name,
      readyState: adapter.readyState as ProtocolReadyState,
      adapter,
    }));
  const layout = getWalletModalLayout(sortWallets(entries, precedence), previouslyConnected);
  if (layout.kind === "onboarding") {
    return { kind: "onboarding" as const, highlight: [] as Adapter[], others: [] as Adapter[], shade: false };
  }
  return {
    kind: layout.kind,
    highlight: layout.highlighted.map((w) => w.adapter),
    others: layout.others.map((w) => w.adapter),
    shade: layout.shadeOthers,
  };
}

export interface WalletModalProps {
  adapters: Adapter[];
  previouslyConnected: readonly string[];
  theme: WalletModalTheme;
  language: Language;
  /** Target of the 'Can't find your wallet?' link; the link is hidden without it. */
  explanationUrl: string | null;
  /** Precedence for ordering the remaining wallets (wallet names). */
  precedence?: readonly string[];
  /** An installed or loadable wallet was chosen. */
  onSelect(adapter: Adapter): void;
  /** A not-detected wallet was chosen (the not-installed screen opens). */
  onNotInstalled(adapter: Adapter): void;
  onClose(): void;
}

type Screen =
  | { name: "list" }
  | { name: "onboarding"; step: "intro" | "wallets"; canGoBack: boolean }
  | { name: "not-installed"; adapter: Adapter };

function WalletIcon({ adapter }: { adapter: Adapter }) {
  return adapter.icon ? (
    <img className="wallet-icon" src={adapter.icon} alt="" width={30} height={30} />
  ) : (
    <span className="wallet-icon wallet-icon-unknown" aria-hidden="true" />
  );
}

function WalletItem({
  adapter,
  t,
  onClick,
}: {
  adapter: Adapter;
  t: (k: string) => string;
  onClick(): void;
}) {
  const label = adapter.name === SolanaMobileWalletAdapterWalletName ? t("Mobile") : adapter.name;
  return (
    <li>
      <button type="button" className="wallet-item" onClick={onClick} data-wallet={adapter.name}>
        <WalletIcon adapter={adapter} />
        <span className="wallet-item-name">{label}</span>
      </button>
    </li>
  );
}

/**
 * The connect-wallet modal (spec section 2): recently used / recommended / top wallets, a 'More
 * wallets' grid, onboarding and not-installed screens, translated, in light, dark or jupiter theme.
 * Closes on a mouse-up outside the dialog, with a 150 ms fade.
 */
export function WalletModal(props: WalletModalProps) {
  const {
    adapters,
    previouslyConnected,
    theme,
    language,
    explanationUrl,
    precedence,
    onSelect,
    onNotInstalled,
    onClose,
  } = props;
  const t = useCallback((key: string) => translate(key, language), [language]);
  const groups = useMemo(
    () => getModalGroups(adapters, previouslyConnected, precedence ?? []),
    [adapters, previouslyConnected, precedence],
  );
  const [screen, setScreen] = useState<Screen>(() =>
    groups.kind === "onboarding" ? { name: "onboarding", step: "intro", canGoBack: false } : { name: "list" },
  );
  const [expanded, setExpanded] = useState(false);
  const [closing, setClosing] = useState(false);
  const [visible, setVisible] = useState(false);
  const contentRef = useRef<HTMLDivElement>(null);

  const close = useCallback(() => {
    setClosing(true);
    setTimeout(onClose, WALLET_MODAL_FADE_MS);
  }, [onClose]);

  useEffect(() => {
    // Move focus into the dialog so keyboard users start inside it; fade in on the next frame.
    contentRef.current?.focus();
    const frame = requestAnimationFrame(() => setVisible(true));
    return () => cancelAnimationFrame(frame);
  }, []);

  useEffect(() => {
    const onMouseUp = (event: MouseEvent) => {
      const content = contentRef.current;
      if (content && event.target instanceof Node && !content.contains(event.target)) close();
    };
    const onKeyDown = (event: KeyboardEvent) => {
      if (event.key === "Escape") close();
      else if (contentRef.current) trapFocus(contentRef.current, event);
    };
    document.addEventListener("mouseup", onMouseUp);
    document.addEventListener("keydown", onKeyDown);
    return () => {
      document.removeEventListener("mouseup", onMouseUp);
      document.removeEventListener("keydown", onKeyDown);
    };
  }, [close]);

  const chooseWallet = (adapter: Adapter) => {
    if (adapter.readyState === WalletReadyState.NotDetected) {
      onNotInstalled(adapter);
      setScreen({ name: "not-installed", adapter });
      return;
    }
    onSelect(adapter);
  };

  let body: React.ReactNode;
  if (screen.name === "onboarding" && screen.step === "intro") {
    body = (
      <div className="wallet-onboarding">
        <div className="wallet-onboarding-art" aria-hidden="true" />
        <h3>{t("New here?")}</h3>
        <p className="wallet-modal-muted">{t("Welcome to DeFi! Create a crypto wallet to get started!")}</p>
        <button
          type="button"
          className="button button-primary button-block"
          onClick={() => setScreen({ ...screen, step: "wallets" })}
        >
          {t("Get Started")}
        </button>
        {screen.canGoBack ? (
          <button type="button" className="link-button" onClick={() => setScreen({ name: "list" })}>
            {`← ${t("Go back")}`}
          </button>
        ) : null}
      </div>
    );
  } else if (screen.name === "onboarding") {
    body = (
      <div className="wallet-onboarding">
        <h3>{t("Popular wallets to get started")}</h3>
        <ul className="wallet-links">
          {ONBOARDING_WALLETS.map((w) => (
            <li key={w.name}>
              <a href={w.url} target="_blank" rel="noopener noreferrer" className="wallet-item">
                <img
                  className="wallet-icon"
                  src={letterIcon(w.name[0]!, w.color)}
                  alt=""
                  width={30}
                  height={30}
                />
                <span className="wallet-item-name">{w.name}</span>
                <span aria-hidden="true">↗</span>
              </a>
            </li>
          ))}
          <li>
            <a href={MORE_WALLETS_URL} target="_blank" rel="noopener noreferrer" className="wallet-item">
              <span>{t("More wallets")}</span>
              <span aria-hidden="true">↗</span>
            </a>
          </li>
        </ul>
        <p className="wallet-modal-muted">{t("Once installed, refresh this page")}</p>
        <button type="button" className="link-button" onClick={() => setScreen({ ...screen, step: "intro" })}>
          {`← ${t("Go back")}`}
        </button>
      </div>
    );
  } else if (screen.name === "not-installed") {
    const { adapter } = screen;
    body = (
      <div className="wallet-not-installed">
        <h3>{`${t("Have you installed")} ${adapter.name}?`}</h3>
        <a href={adapter.url} target="_blank" rel="noopener noreferrer" className="wallet-install-link">
          {t("Install")} {adapter.name} ↗
        </a>
        <div className="wallet-hint">
          <p>{t("On mobile:")}</p>
          <ul>
            <li>{t("You should open the app instead")}</li>
          </ul>
        </div>
        <div className="wallet-hint">
          <p>{t("On desktop:")}</p>
          <ul>
            <li>{t("Install and refresh the page")}</li>
          </ul>
        </div>
        <div className="wallet-modal-actions">
          <button
            type="button"
            className="button"
            onClick={() => setScreen({ name: "onboarding", step: "intro", canGoBack: true })}
          >
            {t("I don't have a wallet")}
          </button>
          <button type="button" className="button" onClick={() => setScreen({ name: "list" })}>
            {`← ${t("Go back")}`}
          </button>
        </div>
      </div>
    );
  } else {
    body = (
      <div className="wallet-lists">
        {groups.kind === "recent" ? <h3 className="wallet-group-title">{t("Recently used")}</h3> : null}
        {groups.kind === "recommended" ? (
          <h3 className="wallet-group-title">{t("Recommended wallets")}</h3>
        ) : null}
        <ul className="wallet-grid wallet-grid-highlight" translate="no">
          {groups.highlight.map((adapter) => (
            <WalletItem key={adapter.name} adapter={adapter} t={t} onClick={() => chooseWallet(adapter)} />
          ))}
        </ul>
        {groups.others.length > 0 ? (
          <>
            <button
              type="button"
              className="wallet-more-toggle"
              aria-expanded={expanded}
              onClick={() => setExpanded((v) => !v)}
            >
              <span>{t("More wallets")}</span>
              <span aria-hidden="true">{expanded ? "▴" : "▾"}</span>
            </button>
            {expanded ? (
              <ul className="wallet-grid wallet-grid-more" translate="no" data-testid="more-wallets">
                {groups.others.map((adapter) => (
                  <WalletItem
                    key={adapter.name}
                    adapter={adapter}
                    t={t}
                    onClick={() => chooseWallet(adapter)}
                  />
                ))}
              </ul>
            ) : null}
          </>
        ) : null}
        {explanationUrl ? (
          <a className="wallet-explanation" href={explanationUrl} target="_blank" rel="noopener noreferrer">
            {t("Can't find your wallet?")}
          </a>
        ) : null}
        <button
          type="button"
          className="link-button"
          onClick={() => setScreen({ name: "onboarding", step: "intro", canGoBack: true })}
        >
          {t("I don't have a wallet")}
        </button>
        {expanded && groups.shade ? <div className="wallet-shade" data-testid="wallet-shade" /> : null}
      </div>
    );
  }

  return (
    <div
      className={`wallet-modal-backdrop wallet-theme-${theme}${visible && !closing ? " is-visible" : ""}`}
      style={{ transitionDuration: `${WALLET_MODAL_FADE_MS}ms` }}
    >
      <div
        ref={contentRef}
        tabIndex={-1}
        className="wallet-modal"
        role="dialog"
        aria-modal="true"
        aria-labelledby="wallet-modal-title"
      >
        <header className="wallet-modal-header">
          <div>
            <h2 id="wallet-modal-title">{t("Connect Wallet")}</h2>
            <p className="wallet-modal-muted">{t("You need to connect a Solana wallet.")}</p>
          </div>
          <button type="button" className="wallet-modal-close" aria-label={t("Close")} onClick={close}>
            ×
          </button>
        </header>
        <div className="wallet-modal-body">{body}</div>
      </div>
    </div>
  );
}
