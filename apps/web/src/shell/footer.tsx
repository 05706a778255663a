import { useAppContext } from "../app-context.ts";

/** The footer: cluster, build id and the support link when one is configured (SUPPORT_URL). */
export function Footer() {
  const { config, buildId } = useAppContext();
  return (
    <footer className="app-footer">
      <span>© Cistern — peer-to-pool lending on Solana</span>
      <span className="footer-meta">
        <span className="cluster-badge" data-testid="cluster">
          {config.cluster}
        </span>
        {config.supportUrl !== null ? (
          <a href={config.supportUrl} target="_blank" rel="noreferrer">
            Discord
          </a>
        ) : null}
        <span title="Build id">build {buildId}</span>
      </span>
    </footer>
  );
}
