import { useId, useState } from "react";
import { Link } from "../kit/page-kit.tsx";
import { PAGE_LINKS } from "../kit/page-links.ts";
import { useLocationHref } from "../lib/location.ts";

/**
 * Main navigation to the feature pages; the current section is marked. On phones the links fold into a menu
 * (a button with the current page's name) that closes again on navigation, also when the link tapped is the
 * page already open (the menu would otherwise stay over the page).
 */
export function PageNav() {
  const path = new URL(useLocationHref()).pathname;
  // open for the page it was opened on: navigating elsewhere closes it
  const [openOn, setOpenOn] = useState<string | null>(null);
  const open = openOn === path;
  const listId = useId();
  const isCurrent = (to: string) => path === to || path.startsWith(`${to}/`);
  const current = PAGE_LINKS.find((link) => isCurrent(link.path));
  return (
    <nav className={open ? "pg-nav is-open" : "pg-nav"} aria-label="Main">
      <button
        type="button"
        className="pg-nav-toggle"
        aria-expanded={open}
        aria-controls={listId}
        onClick={() => setOpenOn(open ? null : path)}
        data-testid="nav-menu"
      >
        <span aria-hidden="true">☰</span> <span className="pg-nav-current">{current?.label ?? "Menu"}</span>
      </button>
      <div className="pg-nav-links" id={listId}>
        {PAGE_LINKS.map((link) => (
          <Link
            key={link.path}
            to={link.path}
            onNavigate={() => setOpenOn(null)}
            {...(isCurrent(link.path) ? { "aria-current": "page" as const } : {})}
          >
            {link.label}
          </Link>
        ))}
      </div>
    </nav>
  );
}
