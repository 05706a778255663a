import { useAppContext } from "../app-context.ts";

/** The footer: cluster, build id and help links. */
export function Footer() {
  const { config, buildId } = useAppContext();
  return (
    <footer className="app-footer">
      <span>© Cistern — peer-to-pool lending on Solana</span>
      <span className="footer-meta">
        <span className="cluster-badge" data-testid="cluster">
          {config.cluster}
        </span>
        <a href={config.discordUrl} target="_blank" rel="noreferrer">
          Discord
        </a>
        <span title="Build id">build {buildId}</span>
      </span>
    </footer>
  );
}
