/** The Cistern mark: a water drop inside a cistern. */
export function Logo({ size = 28 }: { size?: number }) {
  return (
    <svg width={size} height={size} viewBox="0 0 64 64" aria-hidden="true">
      <defs>
        <linearGradient id="logo-g" x1="0" y1="0" x2="1" y2="1">
          <stop offset="0" stopColor="#5eead4" />
          <stop offset="1" stopColor="#3b82f6" />
        </linearGradient>
      </defs>
      <rect x="4" y="4" width="56" height="56" rx="16" fill="url(#logo-g)" />
      <path d="M32 14c7 9 12 15 12 22a12 12 0 0 1-24 0c0-7 5-13 12-22z" fill="#0b1530" />
      <path d="M14 44h36" stroke="#0b1530" strokeWidth="4" strokeLinecap="round" />
    </svg>
  );
}
