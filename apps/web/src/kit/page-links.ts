/** Navigation entries of the feature pages (path, label). */
export const PAGE_LINKS: readonly { path: string; label: string }[] = [
  { path: "/borrow", label: "Borrow" },
  { path: "/margin", label: "Margin" },
  { path: "/buy", label: "Buy NFTs" },
  { path: "/lend", label: "Lend" },
  { path: "/pools", label: "Pools" },
  { path: "/my-pools", label: "My pools" },
  { path: "/loans", label: "Loans" },
  { path: "/dashboard", label: "Dashboard" },
];
