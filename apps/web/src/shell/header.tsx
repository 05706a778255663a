import { ChatButton } from "../chat/chat-panel.tsx";
import { navigate } from "../lib/location.ts";
import { NotificationBell } from "../notifications/notification-bell.tsx";
import { useTheme } from "../theme/theme.ts";
import { WalletButton } from "../wallet/wallet-button.tsx";
import { Logo } from "./logo.tsx";
import { PageNav } from "./nav.tsx";

/** The top bar: brand, theme switch, settings and the wallet control. */
export function Header({ onOpenSettings }: { onOpenSettings(): void }) {
  const { theme, toggleTheme } = useTheme();
  return (
    <header className="app-header">
      <a
        className="brand"
        href="/"
        aria-label="Cistern home"
        onClick={(event) => {
          event.preventDefault();
          navigate("/");
        }}
      >
        <Logo />
        <span>Cistern</span>
      </a>
      <PageNav />
      <div className="header-actions">
        <button
          type="button"
          className="icon-button"
          onClick={toggleTheme}
          aria-label={theme === "dark" ? "Switch to light theme" : "Switch to dark theme"}
          data-testid="theme-toggle"
        >
          {theme === "dark" ? "☀" : "☾"}
        </button>
        <button
          type="button"
          className="icon-button"
          onClick={onOpenSettings}
          aria-label="Settings"
          data-testid="open-settings"
        >
          ⚙
        </button>
        <NotificationBell />
        <ChatButton />
        <WalletButton />
      </div>
    </header>
  );
}
