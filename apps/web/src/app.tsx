import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { useEffect, useMemo, useState, useTransition } from "react";
import { createAnalytics } from "./analytics/analytics.ts";
import { AppContext, type AppContextValue } from "./app-context.ts";
import { renderFeaturePage } from "./app-routes.tsx";
import { ChatProvider } from "./chat/chat-context.tsx";
import { ChatPanelHost } from "./chat/chat-panel.tsx";
import type { RuntimeConfig } from "./config/runtime-config.ts";
import { WalletDataSync } from "./data/wallet-data-sync.tsx";
import { listenToHistory, locationStore } from "./lib/location.ts";
import { applyReferralFromUrl } from "./referral/referral.ts";
import { useSettings } from "./settings/settings-store.ts";
import { Footer } from "./shell/footer.tsx";
import { Header } from "./shell/header.tsx";
import { HomePage, NotFoundPage } from "./shell/home-page.tsx";
import { ProgressBar } from "./shell/progress-bar.tsx";
import { scheduleSessionRecording } from "./shell/session-recording.ts";
import { SidePanel } from "./shell/side-panel.tsx";
import { UpdateBanner } from "./shell/update-banner.tsx";
import { Toaster } from "./toasts/toaster.tsx";
import { TOAST_WALLET_NOTIFICATIONS, type WalletNotifications } from "./wallet/wallet-notifications.ts";
import { WalletSetup } from "./wallet/wallet-setup.tsx";

/** Creates the app's query client: no refetch on focus; intervals pause while the page is hidden. */
export function createQueryClient(): QueryClient {
  return new QueryClient({ defaultOptions: { queries: { refetchOnWindowFocus: false, staleTime: 10_000 } } });
}

function Routes({ href }: { href: string }) {
  const path = new URL(href).pathname;
  if (path === "/" || path === "/index.html") return <HomePage />;
  return renderFeaturePage(path) ?? <NotFoundPage />;
}

/** The frame: progress bar, update banner, header, page, footer, side panel. */
function Shell({ context }: { context: AppContextValue }) {
  const [href, setHref] = useState(() => locationStore.get());
  const [navigating, startTransition] = useTransition();
  const [panelOpen, setPanelOpen] = useState(false);
  const { config, analytics } = context;

  useEffect(() => {
    listenToHistory();
    return locationStore.subscribe(() => startTransition(() => setHref(locationStore.get())));
  }, []);

  // The referral parameter is read on every navigation; each navigation is a page view.
  useEffect(() => {
    applyReferralFromUrl(href, config.referralNames);
    analytics.pageView(new URL(href).pathname);
  }, [href, config.referralNames, analytics]);

  useEffect(
    () => scheduleSessionRecording(config.sessionRecordingScriptUrl),
    [config.sessionRecordingScriptUrl],
  );

  return (
    <div className="app">
      <ProgressBar navigating={navigating} />
      <UpdateBanner buildId={context.buildId} />
      <Header onOpenSettings={() => setPanelOpen(true)} />
      <Routes href={href} />
      <Footer />
      <SidePanel open={panelOpen} onClose={() => setPanelOpen(false)} />
      <ChatPanelHost />
    </div>
  );
}

/** The whole app for a runtime config and build id. */
export function App({ config, buildId }: { config: RuntimeConfig; buildId: string }) {
  const settings = useSettings();
  const rpcUrl = settings.rpcUrl ?? config.rpcUrl;
  const analytics = useMemo(() => createAnalytics(config.analyticsUrl), [config.analyticsUrl]);
  const [queryClient] = useState(createQueryClient);
  // Wallet notifications: toasts, plus connect / disconnect actions for analytics.
  const notifications = useMemo<WalletNotifications>(
    () => ({
      ...TOAST_WALLET_NOTIFICATIONS,
      onConnect(payload) {
        TOAST_WALLET_NOTIFICATIONS.onConnect(payload);
        analytics.action("wallet_connected", { walletName: payload.walletName });
      },
      onDisconnect(payload) {
        TOAST_WALLET_NOTIFICATIONS.onDisconnect(payload);
        analytics.action("wallet_disconnected", { walletName: payload.walletName });
      },
    }),
    [analytics],
  );
  const context = useMemo<AppContextValue>(
    () => ({ config, rpcUrl, analytics, buildId }),
    [config, rpcUrl, analytics, buildId],
  );
  return (
    <AppContext.Provider value={context}>
      <QueryClientProvider client={queryClient}>
        <WalletSetup
          rpcUrl={rpcUrl}
          cluster={config.cluster}
          explanationUrl={config.walletExplanationUrl}
          modalTheme={config.walletModalTheme}
          notifications={notifications}
        >
          <WalletDataSync />
          <ChatProvider>
            <Shell context={context} />
          </ChatProvider>
        </WalletSetup>
      </QueryClientProvider>
      <Toaster />
    </AppContext.Provider>
  );
}
