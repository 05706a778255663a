import { useLocationHref } from "../shell/location.ts";
import { Link } from "./page-kit.tsx";
import { PAGE_LINKS } from "./routes.tsx";

/** Main navigation to the feature pages; the current section is marked. */
export function PageNav() {
  const path = new URL(useLocationHref()).pathname;
  return (
    <nav className="pg-nav" aria-label="Main">
      {PAGE_LINKS.map((link) => {
        const current = path === link.path || path.startsWith(`${link.path}/`);
        return (
          <Link key={link.path} to={link.path} {...(current ? { "aria-current": "page" as const } : {})}>
            {link.label}
          </Link>
        );
      })}
    </nav>
  );
}
